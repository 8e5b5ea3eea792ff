// The QoS policy reader: OpenSM's grammar, its scanner's quirks, and one test per kind
// of error, each naming line:column.
#include <gtest/gtest.h>

#include "qos_policy/errors.hpp"
#include "qos_policy/format.hpp"
#include "qos_policy/parser.hpp"

namespace ibsm::qos_policy {
namespace {

constexpr const char* kFull = R"(# every section
port-groups
    port-group
        name: Storage
        use: SRP targets, rack 4
        port-guid: 0x100-0x1ff, 0x50
        port-guid: 0x200
    end-port-group
    port-group
        name: Compute Nodes
        port-name: "cn01 HCA-1/P1", cn02/P2
        partition: Part1
        pkey: 0x8abc
        node-type: CA, self
    end-port-group
end-port-groups

qos-setup
    vlarb-tables
        vlarb-scope
            group: Storage
            across: Compute Nodes
            vlarb-high: 0:255,1:127
            vlarb-low: 2:64
            vl-high-limit: 10
        end-vlarb-scope
    end-vlarb-tables
    sl2vl-tables
        sl2vl-scope
            group: Storage
            from: *
            to: 1-4,7
            sl2vl-table: 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
        end-sl2vl-scope
    end-sl2vl-tables
end-qos-setup

qos-levels
    qos-level
        name: DEFAULT
        sl: 0
    end-qos-level
    qos-level
        name: Fast
        use: low latency
        sl: 3
        mtu-limit: 4
        rate-limit: 7
        packet-life: 12
        path-bits: 2,4,8-32
        pkey: 0x0F00-0x0FFF
    end-qos-level
end-qos-levels

qos-match-rules
    qos-match-rule
        use: by class
        qos-class: 9-7,11
        qos-level-name: fast
    end-qos-match-rule
    qos-match-rule
        source: Compute Nodes
        destination: storage
        service-id: 0x10000-0x1ffff
        pkey: 0x8001
        qos-level-name: DEFAULT
    end-qos-match-rule
end-qos-match-rules
)";

TEST(QosPolicyParser, ReadsEverySection) {
  auto r = parse_policy(kFull);
  ASSERT_TRUE(r.ok()) << format_error(r.error(), "f");
  const Policy& p = *r;
  ASSERT_EQ(p.groups.size(), 2u);
  EXPECT_EQ(p.groups[0].name, "Storage");
  EXPECT_EQ(p.groups[0].use, "SRP targets, rack 4");  // a description keeps blanks and commas
  EXPECT_EQ(p.groups[0].guids, (Ranges{{0x50, 0x50}, {0x100, 0x200}}));  // merged, sorted
  // Unquoted names lose their blanks, as in OpenSM's scanner; quoted ones keep them.
  EXPECT_EQ(p.groups[1].name, "ComputeNodes");
  EXPECT_EQ(p.groups[1].port_names, (std::vector<std::string>{"cn01 HCA-1/P1", "cn02/P2"}));
  EXPECT_EQ(p.groups[1].partitions, (std::vector<std::string>{"Part1"}));
  EXPECT_EQ(p.groups[1].pkeys, (Ranges{{0x0abc, 0x0abc}}));  // membership bit dropped
  EXPECT_EQ(p.groups[1].node_types, kTypeCa);
  EXPECT_TRUE(p.groups[1].self);

  ASSERT_EQ(p.vlarb.size(), 1u);
  EXPECT_EQ(p.vlarb[0].high.size(), 2u);
  EXPECT_EQ(p.vlarb[0].high_limit, 10u);
  ASSERT_EQ(p.sl2vl.size(), 1u);
  EXPECT_TRUE(p.sl2vl[0].from.all());
  EXPECT_TRUE(p.sl2vl[0].to.test(1) && p.sl2vl[0].to.test(4) && p.sl2vl[0].to.test(7));
  EXPECT_FALSE(p.sl2vl[0].to.test(5));
  EXPECT_EQ(p.sl2vl[0].table[15], 15);

  ASSERT_EQ(p.levels.size(), 2u);
  EXPECT_EQ(p.default_level, 0u);
  const Level& fast = p.levels[1];
  EXPECT_EQ(fast.sl, 3);
  EXPECT_EQ(fast.mtu_limit, 4);
  EXPECT_EQ(fast.rate_limit, 7);
  EXPECT_EQ(fast.packet_life, 12);
  EXPECT_EQ(fast.path_bits, (Ranges{{2, 2}, {4, 4}, {8, 32}}));
  EXPECT_EQ(fast.pkeys, (Ranges{{0x0f00, 0x0fff}}));

  ASSERT_EQ(p.rules.size(), 2u);
  EXPECT_EQ(p.rules[0].qos_class, (Ranges{{7, 9}, {11, 11}}));  // reversed range turned
  EXPECT_EQ(p.rules[0].level, 1u);                              // names are case-insensitive
  EXPECT_EQ(p.rules[1].source_groups, (std::vector<std::size_t>{1}));
  EXPECT_EQ(p.rules[1].destination_groups, (std::vector<std::size_t>{0}));
  EXPECT_EQ(p.rules[1].pkey, (Ranges{{1, 1}}));
}

TEST(QosPolicyParser, UlpsBecomeRulesAfterTheMatchRules) {
  auto r = parse_policy(R"(
qos-ulps
    default                       : 1
    sdp, port-num 30000           : 2
    sdp                           : 3
    rds                           : 4
    iser, port-num 900-901        : 5
    iser                          : 6
    ipoib, pkey 0x8001            : 7
    ipoib                         : 8
    any, service-id 0x6234        : 9
    any, pkey 0x0ABC              : 10
    srp, target-port-guid 0x1234  : 11
    any, target-port-guid 0x10-0x20 : 12
    any, source-port-guid 0x5678  : 13
    any, source-target-port-guid 0x9abc : 14
end-qos-ulps
qos-match-rules
    qos-match-rule
        service-id: 1
        qos-level-name: x
    end-qos-match-rule
end-qos-match-rules
qos-levels
    qos-level
        name: x
        sl: 15
    end-qos-level
end-qos-levels
)");
  ASSERT_TRUE(r.ok()) << format_error(r.error(), "f");
  const Policy& p = *r;
  ASSERT_EQ(p.rules.size(), 14u);
  EXPECT_EQ(p.levels[p.rules[0].level].name, "x");  // qos-match-rules first
  auto sl_of = [&](std::size_t i) { return *p.levels[p.rules[i].level].sl; };
  EXPECT_EQ(sl_of(1), 2);
  EXPECT_EQ(p.rules[1].service_id, (Ranges{{0x10000 + 30000, 0x10000 + 30000}}));
  EXPECT_EQ(p.rules[2].service_id, (Ranges{{0x10000, 0x1ffff}}));
  EXPECT_EQ(p.rules[3].service_id, (Ranges{{0x10648CA, 0x10648CA}}));
  EXPECT_EQ(p.rules[4].service_id, (Ranges{{0x1060000 + 900, 0x1060000 + 901}}));
  EXPECT_EQ(p.rules[5].service_id, (Ranges{{0x1060CBC, 0x1060CBC}}));
  EXPECT_EQ(p.rules[6].pkey, (Ranges{{1, 1}}));
  EXPECT_EQ(p.rules[7].pkey, (Ranges{{0x7fff, 0x7fff}}));
  EXPECT_EQ(p.ipoib_checks.size(), 2u);
  EXPECT_EQ(p.rules[9].pkey, (Ranges{{0xabc, 0xabc}}));
  ASSERT_EQ(p.rules[10].destination_groups.size(), 1u);
  EXPECT_EQ(p.groups[p.rules[10].destination_groups[0]].name, "_SRP_Targets_");
  EXPECT_TRUE(p.rules[10].source_groups.empty());
  EXPECT_EQ(p.rules[12].source_groups.size(), 1u);
  EXPECT_TRUE(p.rules[12].destination_groups.empty());
  EXPECT_EQ(p.rules[13].source_groups, p.rules[13].destination_groups);
  EXPECT_EQ(sl_of(13), 14);
  // No qos-level DEFAULT: qos-ulps' default applies.
  EXPECT_EQ(p.levels[p.default_level].sl, 1);
}

TEST(QosPolicyParser, ShortestPolicies) {
  EXPECT_TRUE(parse_policy("qos-ulps\n default : 0\nend-qos-ulps\n").ok());
  EXPECT_TRUE(
      parse_policy("qos-levels\n qos-level\n name: DEFAULT\n sl: 0\n end-qos-level\nend-qos-levels")
          .ok());
  // Keywords need no line of their own (the scanner has no line structure).
  EXPECT_TRUE(
      parse_policy("qos-levels qos-level name: default sl: 2 end-qos-level end-qos-levels").ok());
}

TEST(QosPolicyParser, NumbersAreCNotation) {
  auto r = parse_policy(
      "qos-levels\n qos-level\n name: DEFAULT\n sl: 010\n end-qos-level\nend-qos-levels\n");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->levels[0].sl, 8);  // octal, as strtoull(.., 0)
}

struct BadCase {
  const char* text;
  unsigned line, column;
  const char* words;  // part of the message
  std::uint16_t id = 2501;
};

class QosPolicyErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(QosPolicyErrors, RefusedWithLineAndColumn) {
  const BadCase& c = GetParam();
  auto r = parse_policy(c.text);
  ASSERT_FALSE(r.ok()) << c.text;
  EXPECT_EQ(r.error().id.code, c.id);
  EXPECT_EQ(r.error().pos.line, c.line) << r.error().message;
  EXPECT_EQ(r.error().pos.column, c.column) << r.error().message;
  EXPECT_NE(r.error().message.find(c.words), std::string::npos) << r.error().message;
  const std::string f = format_error(r.error(), "/etc/q.conf");
  EXPECT_EQ(f.rfind("IBSM-", 0), 0u);
  const std::string where =
      c.line == 0 ? std::string("/etc/q.conf: ")
                  : "/etc/q.conf:" + std::to_string(c.line) + ":" + std::to_string(c.column) + ": ";
  EXPECT_NE(f.find(where), std::string::npos) << f;
}

INSTANTIATE_TEST_SUITE_P(
    EachKind, QosPolicyErrors,
    ::testing::Values(
        BadCase{"bogus\n", 1, 1, "expected a section"},
        BadCase{"qos-levels\n qos-level\n  name: a\n  sl: 0\n end-qos-level\n", 6, 1, "not closed"},
        BadCase{"qos-levels\n qos-level\n  nme: a\n", 3, 3, "unexpected"},
        BadCase{"qos-levels\n qos-level\n  name: a\n  sl: x\n", 4, 7, "expected a number"},
        BadCase{"qos-levels\n qos-level\n  name: a\n  sl: 16\n", 4, 7, "out of range"},
        BadCase{"qos-levels\n qos-level\n  name: a\n  sl: 1\n  sl: 2\n", 5, 3, "multiple 'sl'"},
        BadCase{"qos-levels\n qos-level\n  name: a\n  sl: 1\n  mtu-limit: 6\n", 5, 14,
                "out of range"},
        BadCase{"qos-levels\n qos-level\n  name: a\n  sl: 1\n  rate-limit: 1\n", 5, 15,
                "out of range"},
        BadCase{"qos-levels\n qos-level\n  name: a\n end-qos-level\n", 4, 2, "no 'sl'"},
        BadCase{"qos-levels\n qos-level\n  sl: 1\n end-qos-level\n", 4, 2, "no 'name'"},
        BadCase{"qos-levels\n qos-level\n  name: a\n  sl: 99999999999999999999999\n", 4, 7,
                "too large"},
        BadCase{"qos-levels\n qos-level\n  name: a\n  sl: 1\n  pkey: 1-\n", 6, 1,
                "expected a number"},
        BadCase{"port-groups\n port-group\n  use: x\n end-port-group\n", 4, 2,
                "no port group name"},
        BadCase{"port-groups\n port-group\n  name: a\n  node-type: CA, HOST\n", 4, 18,
                "CA, SWITCH"},
        BadCase{"port-groups\n port-group\n  name: a\n  port-name: host1\n", 4, 3,
                "illegal port name"},
        BadCase{"port-groups\nend-port-groups\n", 2, 1, "expected 'port-group'"},
        BadCase{"qos-setup\n sl2vl-tables\n  sl2vl-scope\n   group: a\n   sl2vl-table: 0,1\n", 5, 4,
                "should be 16"},
        BadCase{"qos-setup\n sl2vl-tables\n  sl2vl-scope\n   group: a\n  end-sl2vl-scope\n", 5, 3,
                "no sl2vl table"},
        BadCase{"qos-setup\n vlarb-tables\n  vlarb-scope\n   group: a\n   vlarb-high: 15:1\n", 5, 4,
                "VL 15"},
        BadCase{"qos-setup\n vlarb-tables\n  vlarb-scope\n   vlarb-high: 1:1\n  end-vlarb-scope\n",
                5, 3, "no port groups"},
        BadCase{"qos-setup\n sl2vl-tables\n  sl2vl-scope\n   group: a\n   to: 128\n", 5, 8,
                "out of range"},
        BadCase{"qos-ulps\n default: 16\nend-qos-ulps\n", 2, 11, "illegal SL"},
        BadCase{"qos-ulps\n sdp, port-num 70000 : 1\nend-qos-ulps\n", 2, 16, "out of range"},
        BadCase{"qos-ulps\n srp: 1\nend-qos-ulps\n", 2, 2, "qos-ulps rule"},
        BadCase{"qos-ulps\n any, service-id 5 1\nend-qos-ulps\n", 2, 20, "':'"},
        BadCase{"qos-ulps\nend-qos-ulps\n", 2, 1, "qos-ulps rule"},
        BadCase{"qos-match-rules\n qos-match-rule\n  use: x\n end-qos-match-rule\n", 4, 2,
                "no 'qos-level-name'"},
        BadCase{"qos-match-rules\n qos-match-rule\n  qos-level-name: nope\n end-qos-match-rule\n"
                "end-qos-match-rules\nqos-ulps\n default: 0\nend-qos-ulps\n",
                3, 19, "'nope' not found", 2502},
        BadCase{
            "qos-match-rules\n qos-match-rule\n  source: g\n  qos-level-name: default\n "
            "end-qos-match-rule\nend-qos-match-rules\n"
            "qos-levels\n qos-level\n  name: DEFAULT\n  sl: 0\n end-qos-level\nend-qos-levels\n",
            2, 2, "source port-group 'g' not found", 2502},
        BadCase{"qos-ulps\n sdp: 1\nend-qos-ulps\n", 0, 0, "DEFAULT", 2502}));

TEST(QosPolicyFormat, PrintsWhatWasRead) {
  auto r = parse_policy(kFull);
  ASSERT_TRUE(r.ok());
  const std::string text = format_policy(*r);
  EXPECT_NE(text.find("port-guid: 0x50,0x100-0x200"), std::string::npos) << text;
  EXPECT_NE(text.find("qos-level-name: Fast"), std::string::npos) << text;
  // What is printed reads back to the same policy.
  auto again = parse_policy(text);
  ASSERT_TRUE(again.ok()) << format_error(again.error(), "printed") << "\n" << text;
  EXPECT_EQ(again->rules.size(), r->rules.size());
  EXPECT_EQ(again->levels[1].pkeys, r->levels[1].pkeys);
}

}  // namespace
}  // namespace ibsm::qos_policy
