// The checked-in docs match the option table.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "conf/config_doc.hpp"
#include "conf/flags.hpp"
#include "test_util.hpp"

namespace ibsm::conf {
namespace {

std::string source_file(const std::string& rel) {
  const char* root = std::getenv("IBSM_SOURCE_ROOT");
  return std::string(root ? root : ".") + "/" + rel;
}

TEST(Docs, ConfigurationMdIsCurrent) {
  const std::string checked_in = testing::slurp(source_file("docs/configuration.md"));
  EXPECT_TRUE(checked_in == configuration_markdown())
      << "docs/configuration.md is stale; regenerate it with\n"
         "  build/conf/ibsm-gen-config-doc > docs/configuration.md";
}

TEST(Docs, ManPageNamesEveryImplementedFlag) {
  const std::string man = testing::slurp(source_file("docs/man/ibsm.8"));
  ASSERT_FALSE(man.empty());
  // roff escapes every dash: "\-\-create\-config"
  auto roff = [](std::string_view flag) {
    std::string out;
    for (char c : flag)
      out += c == '-' ? std::string("\\-") : std::string(1, c);
    return out;
  };
  for (const FlagDef& f : all_flags()) {
    if (!f.implemented) continue;
    const std::string name = f.long_name.empty() ? roff(std::string("-") + f.short_name)
                                                 : roff("--" + std::string(f.long_name));
    EXPECT_NE(man.find(name), std::string::npos) << "ibsm.8 does not mention " << name;
  }
}

}  // namespace
}  // namespace ibsm::conf
