// Matching as OpenSM matches (osm_qos_policy.c __qos_policy_get_match_rule_by_params):
// first rule in file order whose every condition holds; a condition on a field the
// query does not carry fails; no rule: the default level. Checked against a plain
// rule-by-rule matcher over random queries, so the precomputed tables change nothing.
#include <gtest/gtest.h>

#include <memory>
#include <random>

#include "qos_policy/compile.hpp"
#include "qos_policy/errors.hpp"
#include "qos_policy/parser.hpp"

namespace ibsm::qos_policy::compile_test {
namespace {

constexpr const char* kPolicy = R"(
port-groups
  port-group
    name: storage
    port-guid: 0x10-0x1f
  end-port-group
  port-group
    name: switches
    node-type: SWITCH
  end-port-group
  port-group
    name: gold
    partition: Gold
  end-port-group
  port-group
    name: named
    port-name: "host 7/P1"
  end-port-group
  port-group
    name: me
    node-type: SELF
  end-port-group
end-port-groups
qos-levels
  qos-level
    name: DEFAULT
    sl: 0
  end-qos-level
  qos-level
    name: L1
    sl: 1
  end-qos-level
  qos-level
    name: L2
    sl: 2
  end-qos-level
  qos-level
    name: L3
    sl: 3
  end-qos-level
  qos-level
    name: L4
    sl: 4
  end-qos-level
end-qos-levels
qos-match-rules
  qos-match-rule
    qos-class: 5
    qos-level-name: L4
  end-qos-match-rule
  qos-match-rule
    destination: storage
    service-id: 0x100-0x1ff
    qos-level-name: L1
  end-qos-match-rule
  qos-match-rule
    source: gold
    destination: storage
    qos-level-name: L2
  end-qos-match-rule
  qos-match-rule
    source: switches, named
    qos-level-name: L3
  end-qos-match-rule
  qos-match-rule
    pkey: 0x8002
    qos-level-name: L4
  end-qos-match-rule
  qos-match-rule
    source: me
    destination: me
    qos-level-name: L1
  end-qos-match-rule
end-qos-match-rules
qos-ulps
  default: 9
  sdp: 6
  any, target-port-guid 0x30 : 7
end-qos-ulps
)";

FabricView fabric() {
  FabricView f;
  auto add = [&](std::uint64_t guid, std::uint8_t type, std::string desc = "h",
                 std::vector<std::uint16_t> parts = {}, bool sm = false) {
    FabricPort p;
    p.guid = guid;
    p.node_type = type;
    p.node_desc = std::move(desc);
    p.port_nums = {1};
    p.partitions = std::move(parts);
    p.is_sm_port = sm;
    f.ports.push_back(p);
  };
  add(0x11, kTypeCa);                 // 0: storage
  add(0x20, kTypeCa, "h", {0x0005});  // 1: gold
  add(0x21, kTypeSwitch);             // 2: switch
  add(0x22, kTypeCa, "host 7");       // 3: named
  add(0x23, kTypeCa, "h", {}, true);  // 4: SM port
  add(0x30, kTypeCa);                 // 5: ULP target
  add(0x40, kTypeCa);                 // 6: nobody
  f.partitions.push_back({"Gold", 0x0005, 2});
  f.partitions.push_back({"Default", 0x7fff, 7});
  return f;
}

std::shared_ptr<const Policy> policy(const char* text) {
  auto r = parse_policy(text);
  EXPECT_TRUE(r.ok()) << format_error(r.error(), "t");
  return std::make_shared<const Policy>(std::move(*r));
}

// The reference: OpenSM's rule-by-rule loop.
std::uint32_t slow_match(const Policy& p, const CompiledPolicy& c, std::uint32_t s, std::uint32_t d,
                         const MatchQuery& q) {
  auto in_any = [&](std::uint32_t port, const std::vector<std::size_t>& gs) {
    for (auto g : gs) {
      if (c.in_group(port, g)) return true;
    }
    return false;
  };
  for (std::uint32_t r = 0; r < p.rules.size(); ++r) {
    const MatchRule& m = p.rules[r];
    if (!m.source_groups.empty() && !in_any(s, m.source_groups)) continue;
    if (!m.destination_groups.empty() && !in_any(d, m.destination_groups)) continue;
    if (!m.qos_class.empty() && (!q.qos_class || !contains(m.qos_class, *q.qos_class))) continue;
    if (!m.service_id.empty() && (!q.service_id || !contains(m.service_id, *q.service_id)))
      continue;
    if (!m.pkey.empty() && (!q.pkey || !contains(m.pkey, *q.pkey & 0x7fff))) continue;
    return r;
  }
  return CompiledPolicy::kNoRule;
}

TEST(QosPolicyMatch, OpenSmSemantics) {
  auto p = policy(kPolicy);
  std::vector<CompileNote> notes;
  auto c = compile(p, fabric(), notes);
  ASSERT_TRUE(c.has_value());
  auto sl = [&](std::uint32_t s, std::uint32_t d, MatchQuery q) { return *c->match(s, d, q).sl; };
  // No field, no group: the default level (a qos-level DEFAULT beats qos-ulps' default).
  EXPECT_EQ(sl(6, 6, {}), 0);
  // QoS class only matches a query that carries it.
  EXPECT_EQ(sl(6, 6, {5, {}, {}}), 4);
  EXPECT_EQ(sl(6, 6, {6, {}, {}}), 0);
  // Destination group plus ServiceID: both needed.
  EXPECT_EQ(sl(6, 0, {{}, 0x150, {}}), 1);
  EXPECT_EQ(sl(6, 0, {}), 0);
  EXPECT_EQ(sl(6, 0, {{}, 0x250, {}}), 0);
  // Source and destination: both must hold (by partition membership for gold).
  EXPECT_EQ(sl(1, 0, {}), 2);
  EXPECT_EQ(sl(0, 1, {}), 0);
  // Node type, and port-name; the first rule that matches wins.
  EXPECT_EQ(sl(2, 6, {}), 3);
  EXPECT_EQ(sl(3, 6, {}), 3);
  EXPECT_EQ(sl(2, 6, {5, {}, {}}), 4);
  // P_Key compared without the membership bit.
  EXPECT_EQ(sl(6, 6, {{}, {}, 0x0002}), 4);
  EXPECT_EQ(sl(6, 6, {{}, {}, 0x8002}), 4);
  // SELF is the SM's port.
  EXPECT_EQ(sl(4, 4, {}), 1);
  // qos-ulps rules come after all match rules.
  EXPECT_EQ(sl(6, 6, {{}, 0x10001, {}}), 6);
  EXPECT_EQ(sl(6, 5, {}), 7);
  EXPECT_EQ(c->match_rule(6, 6, {}), CompiledPolicy::kNoRule);
}

TEST(QosPolicyMatch, TablesAgreeWithRuleByRule) {
  auto p = policy(kPolicy);
  std::vector<CompileNote> notes;
  const FabricView f = fabric();
  auto c = compile(p, f, notes);
  ASSERT_TRUE(c.has_value());
  std::mt19937 rng(7);
  const auto n = static_cast<std::uint32_t>(f.ports.size());
  for (int i = 0; i < 20000; ++i) {
    MatchQuery q;
    if (rng() % 2) q.qos_class = static_cast<std::uint16_t>(rng() % 8);
    if (rng() % 2) q.service_id = (rng() % 2) ? 0x100 + rng() % 0x200 : 0x10000 + rng() % 4;
    if (rng() % 2) q.pkey = static_cast<std::uint16_t>(rng() % 4 | (rng() % 2 ? 0x8000 : 0));
    const std::uint32_t s = static_cast<std::uint32_t>(rng() % n);
    const std::uint32_t d = static_cast<std::uint32_t>(rng() % n);
    ASSERT_EQ(c->match_rule(s, d, q), slow_match(*p, *c, s, d, q)) << i;
  }
}

TEST(QosPolicyMatch, IpoibPartitionIsChecked) {
  auto p = policy("qos-ulps\n default: 0\n ipoib, pkey 0x9 : 3\nend-qos-ulps\n");
  std::vector<CompileNote> notes;
  EXPECT_FALSE(compile(p, fabric(), notes).has_value());
  ASSERT_FALSE(notes.empty());
  EXPECT_EQ(notes.back().id, kPolicyIpoibPartition.code);
  EXPECT_EQ(notes.back().pos.line, 3u);

  FabricView f = fabric();
  f.partitions.push_back({"p9", 0x9, 1});  // one full member is not enough
  notes.clear();
  EXPECT_FALSE(compile(p, f, notes).has_value());
  EXPECT_NE(notes.back().message.find("less than two full members"), std::string::npos);
  f.partitions.back().full_members = 2;
  notes.clear();
  EXPECT_TRUE(compile(p, f, notes).has_value());

  // `ipoib` alone is the default partition, 0x7fff.
  auto d = policy("qos-ulps\n default: 0\n ipoib : 3\nend-qos-ulps\n");
  notes.clear();
  auto c = compile(d, fabric(), notes);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(*c->match(0, 1, {{}, {}, 0xffff}).sl, 3);
}

TEST(QosPolicyMatch, UnknownRulePKeyIsAWarning) {
  auto p = policy("qos-ulps\n default: 0\n any, pkey 0x44 : 3\nend-qos-ulps\n");
  std::vector<CompileNote> notes;
  auto c = compile(p, fabric(), notes);
  ASSERT_TRUE(c.has_value());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_FALSE(notes[0].error);
  EXPECT_EQ(notes[0].id, kPolicyPKeyNoPartition.code);
  EXPECT_EQ(*c->match(0, 1, {{}, {}, 0x44}).sl, 3);
}

}  // namespace
}  // namespace ibsm::qos_policy::compile_test
