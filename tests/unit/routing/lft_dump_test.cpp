// The LFT dump must be byte-identical to OpenSM's opensm-lfts.dump so the two SMs'
// tables can be diffed. kOpenSmDump is what OpenSM 3.3.23 wrote for ibsim's
// net.2sw2path4hca example (opensm -o -D 0x43 --dump_files_dir, 2025-11).
#include <gtest/gtest.h>

#include <sstream>

#include "routing/lft_dump.hpp"
#include "tests/support/to_routing.hpp"
#include "tests/unit/routing/test_helpers.hpp"

namespace ibsm::routing {
namespace {

constexpr std::string_view kNet = test::kTwoSwitchesParallelLinks;

constexpr std::string_view kOpenSmDump =
    R"(Unicast lids [0-6] of switch Lid 1 guid 0x0000000000200000 ('Switch1'):
0x0001 000 # Switch portguid 0x0000000000200000: 'Switch1'
0x0002 001 # Channel Adapter portguid 0x0000000000100001: 'Hca1'
0x0003 003 # Switch portguid 0x0000000000200001: 'Switch2'
0x0004 003 # Channel Adapter portguid 0x0000000000100004: 'Hca2'
0x0005 002 # Channel Adapter portguid 0x0000000000100007: 'Hca3'
0x0006 005 # Channel Adapter portguid 0x000000000010000a: 'Hca4'
6 lids dumped
Unicast lids [0-6] of switch Lid 3 guid 0x0000000000200001 ('Switch2'):
0x0001 003 # Switch portguid 0x0000000000200000: 'Switch1'
0x0002 003 # Channel Adapter portguid 0x0000000000100001: 'Hca1'
0x0003 000 # Switch portguid 0x0000000000200001: 'Switch2'
0x0004 001 # Channel Adapter portguid 0x0000000000100004: 'Hca2'
0x0005 005 # Channel Adapter portguid 0x0000000000100007: 'Hca3'
0x0006 002 # Channel Adapter portguid 0x000000000010000a: 'Hca4'
6 lids dumped
)";

// The fabric with the LIDs OpenSM gave it (it numbers in discovery order).
Topology opensm_numbered() {
  Topology t = testsupport::to_routing(test::parse_or_fail(kNet)).topo;
  t.switches[0].lid = 1;
  t.switches[1].lid = 3;
  const Lid ca_lids[] = {2, 4, 5, 6};  // Hca1..Hca4 in file order
  for (std::size_t i = 0; i < 4; ++i)
    t.end_ports[i].base_lid = ca_lids[i];
  return t;
}

TEST(LftDump, MatchesOpenSmByteForByte) {
  const Topology t = opensm_numbered();
  Routes r;
  r.lfts = {{kNoPath, 0, 1, 3, 3, 2, 5}, {kNoPath, 3, 3, 0, 1, 5, 2}};
  std::ostringstream out;
  dump_lfts(out, t, r);
  EXPECT_EQ(out.str(), kOpenSmDump);
}

TEST(LftDump, SwitchesInGuidOrderUnreachableOmittedUnknownLidNamed) {
  Topology t = opensm_numbered();
  std::swap(t.switches[0], t.switches[1]);  // dump order must not depend on vector order
  Routes r;
  r.lfts = {{kNoPath, 3, kNoPath, 0, 1, 5, 2, 1}, {kNoPath, 0, 1, 3, 3, 2, 5, kNoPath}};
  std::ostringstream out;
  dump_lfts(out, t, r);
  const std::string s = out.str();
  EXPECT_EQ(s.find("Unicast lids [0-7] of switch Lid 1 guid 0x0000000000200000"), 0U) << s;
  EXPECT_EQ(s.find("0x0002 "), s.rfind("0x0002 ")) << "LID 2 is unreachable at Switch2";
  EXPECT_NE(s.find("0x0007 001 # unknown node and type\n"), std::string::npos) << s;
  EXPECT_NE(s.find("7 lids dumped\n"), std::string::npos);
}

TEST(LftDump, RouterAndLmcRangeShowTheOwningPort) {
  Topology t = opensm_numbered();
  t.end_ports[3].is_router = true;
  t.end_ports[0].lmc = 1;  // LIDs 2 and 3 would both be Hca1's; move Switch2 out of the way
  t.switches[1].lid = 7;
  Routes r;
  r.lfts = {{kNoPath, 0, 1, 1, 3, 2, 5, 3}, {kNoPath, 3, 3, 3, 1, 5, 2, 0}};
  std::ostringstream out;
  dump_lfts(out, t, r);
  const std::string s = out.str();
  EXPECT_NE(s.find("0x0003 001 # Channel Adapter portguid 0x0000000000100001: 'Hca1'"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("0x0006 005 # Router portguid 0x000000000010000a: 'Hca4'"), std::string::npos)
      << s;
}

}  // namespace
}  // namespace ibsm::routing
