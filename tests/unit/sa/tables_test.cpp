#include <gtest/gtest.h>

#include "tests/unit/sa/sa_fixture.hpp"

namespace ibsm::sa {
namespace {

TEST(SaFixture, SnapshotPublished) {
  satest::SaRig rig;
  ASSERT_TRUE(rig.sa().snapshot());
  EXPECT_EQ(rig.sa().snapshot()->nodes.size(), 7u);
}

}  // namespace
}  // namespace ibsm::sa
