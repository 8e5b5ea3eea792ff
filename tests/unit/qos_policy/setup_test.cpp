// qos-setup scopes on a fabric (qos_policy/setup.hpp): which scope covers a port's
// VLArbitration table and a table of SL2VL, first in file order; unknown groups warn.
#include <gtest/gtest.h>

#include <memory>

#include "qos_policy/errors.hpp"
#include "qos_policy/parser.hpp"
#include "qos_policy/setup.hpp"

namespace ibsm::qos_policy::setup_test {
namespace {

constexpr const char* kPolicy = R"(port-groups
  port-group
    name: storage
    port-guid: 0x10
  end-port-group
  port-group
    name: spine
    port-guid: 0x30
  end-port-group
end-port-groups
qos-setup
  vlarb-tables
    vlarb-scope
      group: storage
      vlarb-high: 0:1
    end-vlarb-scope
    vlarb-scope
      across: storage, nosuch
      vlarb-low: 1:2
    end-vlarb-scope
    vlarb-scope
      group: storage
      vlarb-low: 3:3
    end-vlarb-scope
  end-vlarb-tables
  sl2vl-tables
    sl2vl-scope
      group: spine
      from: 1-2
      to: 5
      sl2vl-table: 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1
    end-sl2vl-scope
    sl2vl-scope
      across-to: storage
      sl2vl-table: 2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2
    end-sl2vl-scope
    sl2vl-scope
      across-from: storage
      to: 7
      sl2vl-table: 3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3
    end-sl2vl-scope
    sl2vl-scope
      group: storage
      sl2vl-table: 4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4
    end-sl2vl-scope
  end-sl2vl-tables
end-qos-setup
qos-levels
  qos-level
    name: DEFAULT
    sl: 0
  end-qos-level
end-qos-levels
)";

TEST(QosPolicySetup, FirstCoveringScopeDecides) {
  auto parsed = parse_policy(kPolicy);
  ASSERT_TRUE(parsed.ok()) << format_error(parsed.error(), "t");
  FabricView f;
  for (std::uint64_t g : {0x10, 0x20, 0x30}) {
    FabricPort p;
    p.guid = g;
    p.node_type = g == 0x30 ? kTypeSwitch : kTypeCa;
    f.ports.push_back(p);
  }
  std::vector<CompileNote> notes;
  auto c = compile(std::make_shared<const Policy>(std::move(*parsed)), f, notes);
  ASSERT_TRUE(c.has_value());
  const ibsm::qos_policy::Setup s(*c, notes);  // qualified: gtest has a Setup() trap
  ASSERT_EQ(notes.size(), 1u);                 // 'nosuch' is warned about, not refused
  EXPECT_EQ(notes[0].id, kPolicyReference.code);
  EXPECT_FALSE(notes[0].error);
  EXPECT_NE(notes[0].message.find("nosuch"), std::string::npos);

  constexpr std::uint32_t storage = 0, host = 1, spine = 2;
  // VL arbitration: the group's port, the switch port facing it, nobody else.
  ASSERT_NE(s.vlarb(storage, kNoPort), nullptr);
  EXPECT_EQ(s.vlarb(storage, kNoPort)->high.size(), 1u);  // the first scope, not the third
  ASSERT_NE(s.vlarb(spine, storage), nullptr);
  EXPECT_EQ(s.vlarb(spine, storage)->low.front().first, 1u);
  EXPECT_EQ(s.vlarb(spine, host), nullptr);
  EXPECT_EQ(s.vlarb(host, kNoPort), nullptr);

  auto vl0 = [](const Sl2VlScope* x) { return x == nullptr ? -1 : x->table[0]; };
  // The spine's own pairs only within from/to.
  EXPECT_EQ(vl0(s.sl2vl_switch(spine, 1, host, 5, host)), 1);
  EXPECT_EQ(vl0(s.sl2vl_switch(spine, 3, host, 5, host)), -1);
  EXPECT_EQ(vl0(s.sl2vl_switch(spine, 1, host, 6, host)), -1);
  // Output port facing storage: every input.
  EXPECT_EQ(vl0(s.sl2vl_switch(spine, 9, host, 6, storage)), 2);
  // Input port facing storage: only outputs in `to`.
  EXPECT_EQ(vl0(s.sl2vl_switch(spine, 6, storage, 7, host)), 3);
  EXPECT_EQ(vl0(s.sl2vl_switch(spine, 6, storage, 8, host)), -1);
  // An end port's own table.
  EXPECT_EQ(vl0(s.sl2vl_end_port(storage)), 4);
  EXPECT_EQ(vl0(s.sl2vl_end_port(host)), -1);
}

}  // namespace
}  // namespace ibsm::qos_policy::setup_test
