// Engines are looked up by their OpenSM names.
#include <gtest/gtest.h>

#include "routing/engine.hpp"

namespace ibsm::routing {
namespace {

TEST(EngineRegistry, MinhopByName) {
  auto e = make_engine("minhop");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->name(), "minhop");
}

TEST(EngineRegistry, UnknownNameGivesNull) {
  EXPECT_EQ(make_engine("no-such-engine"), nullptr);
  EXPECT_EQ(make_engine(""), nullptr);
  EXPECT_EQ(make_engine("MINHOP"), nullptr);  // OpenSM's names are case-sensitive
}

TEST(EngineRegistry, EveryListedNameConstructsThatEngine) {
  const auto names = engine_names();
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front(), "minhop");
  for (std::string_view n : names) {
    auto e = make_engine(n);
    ASSERT_NE(e, nullptr) << n;
    EXPECT_EQ(e->name(), n);
  }
}

}  // namespace
}  // namespace ibsm::routing
