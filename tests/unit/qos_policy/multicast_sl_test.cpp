// Which rule of the policy decides a multicast group's SL (qos_policy/multicast_sl.hpp):
// the first rule a P_Key-only query matches from any port to any port.
#include <gtest/gtest.h>

#include <string>

#include "qos_policy/multicast_sl.hpp"
#include "qos_policy/parser.hpp"

namespace ibsm::qos_policy {
namespace {

Policy parse(const std::string& text) {
  auto p = parse_policy(text);
  EXPECT_TRUE(p.ok()) << (p ? std::string() : format_error(p.error(), "test"));
  return p ? std::move(*p) : Policy{};
}

constexpr const char* kLevels = R"(
port-groups
  port-group
    name: hosts
    node-type: CA
  end-port-group
end-port-groups
qos-levels
  qos-level
    name: DEFAULT
    sl: 1
  end-qos-level
  qos-level
    name: storage
    sl: 2
  end-qos-level
  qos-level
    name: bulk
    sl: 4
  end-qos-level
end-qos-levels
)";

TEST(MulticastSl, IpoibPkeyUlpDecidesThatPartitionsGroups) {
  const Policy p = parse(std::string(kLevels) + R"(
qos-ulps
  default : 0
  ipoib, pkey 0x0002 : 7
end-qos-ulps
)");
  auto m = multicast_sl(p, 0x8002);  // full-member P_Key: the membership bit is ignored
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->sl, 7);
  EXPECT_EQ(multicast_sl(p, 0x0002)->sl, 7);
  // Another partition: no rule speaks for it, and the default level does not either.
  EXPECT_FALSE(multicast_sl(p, 0xffff).has_value());
}

TEST(MulticastSl, IpoibDefaultUlpIsTheDefaultPartition) {
  const Policy p = parse(std::string(kLevels) + R"(
qos-ulps
  ipoib : 5
end-qos-ulps
)");
  ASSERT_TRUE(multicast_sl(p, 0xffff).has_value());
  EXPECT_EQ(multicast_sl(p, 0xffff)->sl, 5);
  EXPECT_FALSE(multicast_sl(p, 0x8001).has_value());
}

TEST(MulticastSl, RulesNeedingPortsServiceOrClassDoNotSpeakForGroups) {
  const Policy p = parse(std::string(kLevels) + R"(
qos-match-rules
  qos-match-rule
    source: hosts
    pkey: 0x0003
    qos-level-name: storage
  end-qos-match-rule
  qos-match-rule
    destination: hosts
    pkey: 0x0003
    qos-level-name: storage
  end-qos-match-rule
  qos-match-rule
    service-id: 0x100
    pkey: 0x0003
    qos-level-name: storage
  end-qos-match-rule
  qos-match-rule
    qos-class: 2
    pkey: 0x0003
    qos-level-name: storage
  end-qos-match-rule
  qos-match-rule
    pkey: 0x0003
    qos-level-name: bulk
  end-qos-match-rule
end-qos-match-rules
)");
  auto m = multicast_sl(p, 0x8003);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->sl, 4);
  EXPECT_EQ(m->rule, 4u);
}

TEST(MulticastSl, FirstMatchingRuleInFileOrderWins) {
  const Policy p = parse(std::string(kLevels) + R"(
qos-match-rules
  qos-match-rule
    pkey: 0x0001-0x0005
    qos-level-name: storage
  end-qos-match-rule
  qos-match-rule
    pkey: 0x0003
    qos-level-name: bulk
  end-qos-match-rule
end-qos-match-rules
)");
  EXPECT_EQ(multicast_sl(p, 0x0003)->sl, 2);
  EXPECT_EQ(multicast_sl(p, 0x0003)->rule, 0u);
  EXPECT_FALSE(multicast_sl(p, 0x0006).has_value());
}

TEST(MulticastSl, RuleWithNoConditionSpeaksForEveryGroup) {
  const Policy p = parse(std::string(kLevels) + R"(
qos-match-rules
  qos-match-rule
    qos-level-name: storage
  end-qos-match-rule
end-qos-match-rules
)");
  EXPECT_EQ(multicast_sl(p, 0x7fff)->sl, 2);
  EXPECT_EQ(multicast_sl(p, 0x1234)->sl, 2);
}

}  // namespace
}  // namespace ibsm::qos_policy
