// The file engine (-R file -U / -M) and its readers: our own dumps and ibroute output
// load back into identical tables, a LID matrix routes min-hop, and every malformed or
// ill-fitting input is refused with an error that names file and line, never a crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "routing/analysis.hpp"
#include "routing/errors.hpp"
#include "routing/file/lft_dump_reader.hpp"
#include "routing/file/lid_matrix_dump.hpp"
#include "routing/file/lid_matrix_reader.hpp"
#include "routing/file/lid_matrix_routes.hpp"
#include "routing/hop_matrix.hpp"
#include "routing/lft_dump.hpp"
#include "tests/support/builders.hpp"
#include "tests/support/to_routing.hpp"
#include "tests/unit/routing/test_helpers.hpp"

namespace ibsm::routing {
namespace {

using testsupport::to_routing;

constexpr std::string_view kPath = "/etc/ibsm/lfts.dump";
constexpr std::string_view kMatrixPath = "/etc/ibsm/lid-matrix.dump";

Topology fat_tree(std::uint8_t lmc = 0) {
  return to_routing(testsupport::two_level_fat_tree(4, 3, 2, 2), lmc).topo;
}

std::string dump_text(const Topology& topo, const Routes& routes) {
  std::ostringstream out;
  dump_lfts(out, topo, routes);
  return out.str();
}

std::string matrix_text(const Topology& topo) {
  std::ostringstream out;
  EXPECT_TRUE(dump_lid_matrix(out, topo).ok());
  return out.str();
}

// What `ibroute <switch lid>` prints, one switch after the other (dump_lfts.sh).
std::string ibroute_text(const Topology& topo, const Routes& routes) {
  std::string s;
  char buf[200];
  for (std::size_t i = 0; i < topo.switches.size(); ++i) {
    const Switch& sw = topo.switches[i];
    const Lft& lft = routes.lfts[i];
    std::snprintf(buf, sizeof buf,
                  "Unicast lids [0x0-0x%zx] of switch Lid %u guid 0x%016" PRIx64 " (%s):\n",
                  lft.size() - 1, unsigned{sw.lid}, sw.guid, sw.description.c_str());
    s += buf;
    s += "  Lid  Out   Destination\n       Port     Info \n";
    unsigned n = 0;
    for (std::size_t lid = 0; lid < lft.size(); ++lid) {
      if (lft[lid] > sw.num_ports) continue;
      std::snprintf(buf, sizeof buf, "0x%04zx %03u : (Channel Adapter portguid 0x%016x: 'x')\n",
                    lid, unsigned{lft[lid]}, 0x1234U);
      s += buf;
      ++n;
    }
    s += std::to_string(n) + " valid lids dumped \n";
  }
  return s;
}

Result<Routes> load(const Topology& topo, std::string_view text) {
  auto dump = parse_lft_dump(text, kPath);
  if (!dump.ok()) return fail(dump.error());
  return routes_from_dump(topo, *dump, kPath);
}

Result<Routes> run_file_engine(const Topology& topo, std::string lfts, std::string matrix) {
  EngineConfig c;
  if (!lfts.empty() || matrix.empty()) c.lfts = {std::string(kPath), std::move(lfts)};
  if (!matrix.empty()) c.lid_matrix = {std::string(kMatrixPath), std::move(matrix)};
  auto e = make_engine("file", c);
  EXPECT_NE(e, nullptr);
  EXPECT_FALSE(e->deadlock_free());
  return e->route(topo);
}

std::string replace_once(std::string s, std::string_view from, std::string_view to) {
  const std::size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

// The error must carry the ID and name "path:line:".
void expect_error_at(const Error& e, ErrorId id, std::string_view path, std::size_t line) {
  EXPECT_EQ(e.id, id) << e.message;
  const std::string where = std::string(path) + ":" + std::to_string(line) + ":";
  EXPECT_EQ(e.message.rfind(where, 0), 0U) << e.message;
}

// ---- LFT dumps: round trips ----

TEST(FileEngine, OurDumpLoadsBackIdentical) {
  for (std::uint8_t lmc : {0, 1}) {
    const Topology t = fat_tree(lmc);
    const Routes r = test::route_with(t);
    auto loaded = load(t, dump_text(t, r));
    ASSERT_TRUE(loaded.ok()) << to_string(loaded.error());
    EXPECT_EQ(loaded->lfts, r.lfts) << "lmc " << int{lmc};
    EXPECT_TRUE(loaded->warnings.empty());
  }
}

TEST(FileEngine, EngineReplaysTheDumpOnATorus) {
  const Topology t = to_routing(testsupport::torus({3, 3, 1}, 2)).topo;
  const Routes r = test::route_with(t);
  auto loaded = run_file_engine(t, dump_text(t, r), "");
  ASSERT_TRUE(loaded.ok()) << to_string(loaded.error());
  EXPECT_EQ(loaded->lfts, r.lfts);
  EXPECT_TRUE(check_all_pairs(t, *loaded).all_delivered());
}

TEST(FileEngine, ParsesSwitchIdentity) {
  const Topology t = fat_tree();
  auto dump = parse_lft_dump(dump_text(t, test::route_with(t)), kPath);
  ASSERT_TRUE(dump.ok()) << to_string(dump.error());
  ASSERT_EQ(dump->switches.size(), t.switches.size());
  const LftDumpSwitch& first = dump->switches.front();  // lowest GUID first
  std::size_t si = 0;
  for (std::size_t i = 0; i < t.switches.size(); ++i)
    if (t.switches[i].guid < t.switches[si].guid) si = i;
  EXPECT_EQ(first.guid, t.switches[si].guid);
  EXPECT_EQ(first.lid, t.switches[si].lid);
  EXPECT_EQ(first.description, t.switches[si].description);
  EXPECT_FALSE(first.entries.empty());
}

TEST(FileEngine, IbrouteOutputLoadsIdentical) {
  const Topology t = fat_tree();
  const Routes r = test::route_with(t);
  auto loaded = load(t, ibroute_text(t, r));
  ASSERT_TRUE(loaded.ok()) << to_string(loaded.error());
  EXPECT_EQ(loaded->lfts, r.lfts);
}

TEST(FileEngine, IbrouteAllEntriesTreatsPort255AsNoRoute) {
  const Topology t = fat_tree();
  const Routes r = test::route_with(t);
  std::string text = ibroute_text(t, r);
  // ibroute -a also lists unused entries, with port 255.
  text = replace_once(text, "       Port     Info \n",
                      "       Port     Info \n0x0000 255 : (illegal port)\n");
  auto loaded = load(t, text);
  ASSERT_TRUE(loaded.ok()) << to_string(loaded.error());
  EXPECT_EQ(loaded->lfts, r.lfts);
}

TEST(FileEngine, OpenSmDumpOfTwoSwitchFabricLoads) {
  // What OpenSM 3.3.23 wrote for ibsim's net.2sw2path4hca (see lft_dump_test.cpp), with
  // the LIDs it assigned.
  Topology t = to_routing(test::parse_or_fail(test::kTwoSwitchesParallelLinks)).topo;
  t.switches[0].lid = 1;
  t.switches[1].lid = 3;
  const Lid ca_lids[] = {2, 4, 5, 6};
  for (std::size_t i = 0; i < 4; ++i)
    t.end_ports[i].base_lid = ca_lids[i];
  const std::string text =
      "Unicast lids [0-6] of switch Lid 1 guid 0x0000000000200000 ('Switch1'):\n"
      "0x0001 000 # Switch portguid 0x0000000000200000: 'Switch1'\n"
      "0x0002 001 # Channel Adapter portguid 0x0000000000100001: 'Hca1'\n"
      "0x0003 003 # Switch portguid 0x0000000000200001: 'Switch2'\n"
      "0x0004 003 # Channel Adapter portguid 0x0000000000100004: 'Hca2'\n"
      "0x0005 002 # Channel Adapter portguid 0x0000000000100007: 'Hca3'\n"
      "0x0006 005 # Channel Adapter portguid 0x000000000010000a: 'Hca4'\n"
      "6 lids dumped\n"
      "Unicast lids [0-6] of switch Lid 3 guid 0x0000000000200001 ('Switch2'):\n"
      "0x0001 003 # Switch portguid 0x0000000000200000: 'Switch1'\n"
      "0x0002 003 # Channel Adapter portguid 0x0000000000100001: 'Hca1'\n"
      "0x0003 000 # Switch portguid 0x0000000000200001: 'Switch2'\n"
      "0x0004 001 # Channel Adapter portguid 0x0000000000100004: 'Hca2'\n"
      "0x0005 005 # Channel Adapter portguid 0x0000000000100007: 'Hca3'\n"
      "0x0006 002 # Channel Adapter portguid 0x000000000010000a: 'Hca4'\n"
      "6 lids dumped\n";
  auto loaded = load(t, text);
  ASSERT_TRUE(loaded.ok()) << to_string(loaded.error());
  const std::vector<Lft> want = {{kNoPath, 0, 1, 3, 3, 2, 5}, {kNoPath, 3, 3, 0, 1, 5, 2}};
  EXPECT_EQ(loaded->lfts, want);
}

// ---- LFT dumps: malformed text ----

struct BadDump {
  const char* what;
  std::string text;
  std::size_t line;
  const char* says;
};

TEST(FileEngine, MalformedDumpsNameFileAndLine) {
  const std::string h = "Unicast lids [0-4] of switch Lid 1 guid 0x0000000000000001 ('s'):\n";
  const std::string h2 = "Unicast lids [0-4] of switch Lid 2 guid 0x0000000000000002 ('t'):\n";
  const std::vector<BadDump> cases = {
      {"garbage", h + "0x0001 000 # x\nhello world\n4 lids dumped\n", 3, "not part of"},
      {"port above 255", h + "0x0001 256 # x\n4 lids dumped\n", 2, "above 255"},
      {"LID above 0xBFFF", h + "0x0001 001\n0xc000 001 # x\n4 lids dumped\n", 3, "0xBFFF"},
      {"LID outside header range", h + "0x0005 001 # x\n4 lids dumped\n", 2, "range"},
      {"duplicate switch", h + "4 lids dumped\n" + h + "4 lids dumped\n", 3, "already listed"},
      {"duplicate LID", h + "0x0001 001\n0x0001 002\n4 lids dumped\n", 3, "twice"},
      {"truncated block", h + "0x0001 001\n0x0002 001 # Channel\n", 3, "truncated"},
      {"truncated row", h + "0x0001 001\n0x00", 3, "missing port"},
      {"truncated header", "Unicast lids [0-4] of switch Lid 1 gu", 1, "guid"},
      {"header without footer", h + "0x0001 001\n" + h2, 3, "footer"},
      {"entry before header", "0x0001 001 # x\n", 1, "outside"},
      {"footer outside block", "4 lids dumped\n", 1, "footer"},
      {"bad GUID", "Unicast lids [0-4] of switch Lid 1 guid 0xzz ('s'):\n", 1, "GUID"},
      {"bad range", "Unicast lids [4-0] of switch Lid 1 guid 0x1 ('s'):\n", 1, "range"},
      {"multicast dump", "Multicast mlids [0xc000-0xc001] of switch Lid 1 guid 0x1 (s):\n", 1,
       "multicast"},
      {"empty", "\n# only a comment\n", 2, "no switch block"},
      {"binary", std::string("\x01\x02\xff\n", 4), 1, "not part of"},
  };
  for (const BadDump& c : cases) {
    auto d = parse_lft_dump(c.text, kPath);
    ASSERT_FALSE(d.ok()) << c.what;
    expect_error_at(d.error(), kErrLftDumpSyntax, kPath, c.line);
    EXPECT_NE(d.error().message.find(c.says), std::string::npos)
        << c.what << ": " << d.error().message;
  }
}

// ---- LFT dumps: dumps that do not fit the fabric ----

TEST(FileEngine, RefusesDumpMissingASwitch) {
  const Topology t = fat_tree();
  const std::string text = dump_text(t, test::route_with(t));
  // Drop the last switch block.
  const std::string cut = text.substr(0, text.rfind("Unicast lids"));
  auto r = load(t, cut);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().id, kErrLftDumpMismatch);
  EXPECT_NE(r.error().message.find("no LFT in the dump"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().message.rfind(std::string(kPath), 0), 0U);
}

TEST(FileEngine, RefusesDumpOfAnotherFabric) {
  const Topology t = fat_tree();
  Topology other = to_routing(testsupport::torus({2, 2, 1}, 1)).topo;
  for (Switch& s : other.switches)
    s.guid += 0x100000000;  // the builders share a GUID scheme
  auto r = run_file_engine(t, dump_text(other, test::route_with(other)), "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().id, kErrLftDumpMismatch);
  EXPECT_NE(r.error().message.find("another fabric"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find(std::string(kPath)), std::string::npos);
}

TEST(FileEngine, RefusesEntriesOnMissingDownOrSelfPorts) {
  Topology t = fat_tree();
  const Routes r = test::route_with(t);
  const std::string text = dump_text(t, r);

  // A port beyond the switch's port count.
  Topology few = t;
  for (Switch& s : few.switches)
    s.num_ports = 1;
  auto a = load(few, text);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().id, kErrLftDumpMismatch);
  EXPECT_NE(a.error().message.find("ports"), std::string::npos) << a.error().message;

  // A link that went down since the dump was taken.
  Topology down = t;
  down.switches[0].links.pop_back();
  auto b = load(down, text);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().id, kErrLftDumpMismatch);
  EXPECT_NE(b.error().message.find("down"), std::string::npos) << b.error().message;

  // Port 0 for a LID that is not the switch's own.
  Routes self = r;
  self.lfts[0][t.end_ports.back().base_lid] = 0;
  auto c = load(t, dump_text(t, self));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().id, kErrLftDumpMismatch);
  EXPECT_NE(c.error().message.find("port 0"), std::string::npos) << c.error().message;
}

TEST(FileEngine, SkipsUnknownSwitchesAndLidsBeyondTheFabricWithWarnings) {
  const Topology t = fat_tree();
  const Routes r = test::route_with(t);
  std::string text = dump_text(t, r);
  const std::size_t top = r.lfts[0].size() - 1;
  // The first block claims a wider range, with one entry above the fabric's top LID.
  text =
      replace_once(text, "[0-" + std::to_string(top) + "]", "[0-" + std::to_string(top + 5) + "]");
  char row[32];
  std::snprintf(row, sizeof row, "0x%04zx 001 # beyond\n", top + 3);
  const std::string footer = std::to_string(top) + " lids dumped\n";
  text = replace_once(text, footer, row + footer);
  // A switch the fabric does not have.
  text +=
      "Unicast lids [0-4] of switch Lid 99 guid 0x00000000deadbeef ('gone'):\n"
      "0x0001 001 # x\n4 lids dumped\n";
  auto loaded = load(t, text);
  ASSERT_TRUE(loaded.ok()) << to_string(loaded.error());
  EXPECT_EQ(loaded->lfts, r.lfts);
  ASSERT_EQ(loaded->warnings.size(), 1U);
  EXPECT_EQ(loaded->warnings[0].id, kErrLftDumpSkipped);
  EXPECT_NE(loaded->warnings[0].message.find("skipped 1 switch block"), std::string::npos)
      << loaded->warnings[0].message;
  EXPECT_NE(loaded->warnings[0].message.find("1 entries above"), std::string::npos)
      << loaded->warnings[0].message;
}

TEST(FileEngine, WarnsAboutLidsTheDumpDoesNotRoute) {
  const Topology t = fat_tree();
  Routes r = test::route_with(t);
  const Lid lid = t.end_ports.back().base_lid;
  r.lfts[1][lid] = kNoPath;
  auto loaded = load(t, dump_text(t, r));
  ASSERT_TRUE(loaded.ok()) << to_string(loaded.error());
  ASSERT_EQ(loaded->warnings.size(), 1U);
  EXPECT_EQ(loaded->warnings[0].id, kErrLftDumpIncomplete);
  EXPECT_NE(loaded->warnings[0].message.find("LID " + std::to_string(lid)), std::string::npos)
      << loaded->warnings[0].message;
}

// ---- the engine's configuration ----

TEST(FileEngine, FailsWithoutInputAndOnUnreadableFiles) {
  const Topology t = fat_tree();
  auto none = make_engine("file", EngineConfig{})->route(t);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().id, kErrFileEngineNoInput);

  // The SM passes an empty text when it could not read the file.
  auto empty = run_file_engine(t, "", "");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().id, kErrFileEngineEmptyInput);
  EXPECT_NE(empty.error().message.find(std::string(kPath)), std::string::npos);

  EngineConfig m;
  m.lid_matrix = {std::string(kMatrixPath), ""};
  auto empty_matrix = make_engine("file", m)->route(t);
  ASSERT_FALSE(empty_matrix.ok());
  EXPECT_EQ(empty_matrix.error().id, kErrFileEngineEmptyInput);
}

TEST(FileEngine, IsRegistered) {
  bool found = false;
  for (std::string_view n : engine_names())
    found = found || n == "file";
  EXPECT_TRUE(found);
}

// ---- LID matrix ----

TEST(FileEngine, LidMatrixMatchesOpenSmFormat) {
  // OpenSM's hop rules on net.2sw2path4hca: column 0 the least hops (00 for the own
  // LID), the own LID 02 on the inter-switch ports 3 and 5, the other switch 01.
  Topology t = to_routing(test::parse_or_fail(test::kTwoSwitchesParallelLinks)).topo;
  t.switches[0].lid = 1;
  t.switches[1].lid = 3;
  const std::string want =
      "Switch: guid 0x0000000000200000\n"
      "0x0001: 00 ff ff 02 ff 02 ff ff ff # portguid 0x0000000000200000\n"
      "0x0003: 01 ff ff 01 ff 01 ff ff ff # portguid 0x0000000000200001\n"
      "Switch: guid 0x0000000000200001\n"
      "0x0001: 01 ff ff 01 ff 01 ff ff ff # portguid 0x0000000000200000\n"
      "0x0003: 00 ff ff 02 ff 02 ff ff ff # portguid 0x0000000000200001\n";
  EXPECT_EQ(matrix_text(t), want);
  auto m = parse_lid_matrix(want, kMatrixPath);
  ASSERT_TRUE(m.ok()) << to_string(m.error());
  ASSERT_EQ(m->switches.size(), 2U);
  EXPECT_EQ(m->switches[1].rows[0].hops,
            (std::vector<std::uint8_t>{1, 0xff, 0xff, 1, 0xff, 1, 0xff, 0xff, 0xff}));
  EXPECT_EQ(m->switches[1].rows[0].port_guid, 0x200000U);
}

// Every route's length is the topology's switch distance: min-hop.
void expect_min_hop(const Topology& t, const Routes& r) {
  ASSERT_TRUE(check_all_pairs(t, r).all_delivered());
  auto hops = HopMatrix::compute(t);
  ASSERT_TRUE(hops.ok());
  for (std::uint32_t src = 0; src < t.end_ports.size(); ++src)
    for (const EndPort& dst : t.end_ports) {
      const Trace tr = trace_route(t, r, src, dst.base_lid);
      ASSERT_EQ(tr.outcome, Delivery::kDelivered);
      EXPECT_EQ(tr.hops.size(), hops->hops(t.end_ports[src].sw, dst.sw) + 1U)
          << "from end port " << src << " to LID " << dst.base_lid;
    }
}

TEST(FileEngine, LidMatrixAloneRoutesMinHop) {
  for (const Topology& t : {fat_tree(1), to_routing(testsupport::torus({4, 3, 1}, 2)).topo,
                            to_routing(testsupport::kary_ntree(2, 3)).topo}) {
    auto r = run_file_engine(t, "", matrix_text(t));
    ASSERT_TRUE(r.ok()) << to_string(r.error());
    EXPECT_TRUE(r->warnings.empty());
    expect_min_hop(t, *r);
  }
}

TEST(FileEngine, LidMatrixSpreadsLidsOverEqualPorts) {
  // Each leaf of the fat tree has 4 up ports (2 spines x 2 cables) of equal hops: the
  // host LIDs of the other leaves are dealt out evenly, least used first (as minhop).
  const Topology t = fat_tree();
  auto r = run_file_engine(t, "", matrix_text(t));
  ASSERT_TRUE(r.ok()) << to_string(r.error());
  for (std::size_t s = 0; s < t.switches.size(); ++s) {
    std::vector<unsigned> per_port(t.switches[s].num_ports + 1U, 0);
    bool leaf = false;
    for (const EndPort& e : t.end_ports) {
      if (e.sw == s) {
        leaf = true;
        continue;
      }
      ++per_port[r->lfts[s][e.base_lid]];
    }
    if (!leaf) continue;
    std::vector<unsigned> up;
    for (const Link& l : t.switches[s].links)
      if (l.kind == Link::Kind::kSwitch) up.push_back(per_port[l.port]);
    ASSERT_EQ(up.size(), 4U);
    EXPECT_LE(*std::max_element(up.begin(), up.end()) - *std::min_element(up.begin(), up.end()), 1U)
        << t.switches[s].description;
  }
}

TEST(FileEngine, LftsWinOverLidMatrixButMatrixMustLoad) {
  const Topology t = fat_tree();
  Routes r = test::route_with(t, "updn");
  auto both = run_file_engine(t, dump_text(t, r), matrix_text(t));
  ASSERT_TRUE(both.ok()) << to_string(both.error());
  EXPECT_EQ(both->lfts, r.lfts);
  auto bad = run_file_engine(t, dump_text(t, r), "Switch: guid 0x1\nnonsense\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().id, kErrLidMatrixSyntax);
}

TEST(FileEngine, MalformedLidMatricesNameFileAndLine) {
  const std::string h = "Switch: guid 0x0000000000000001\n";
  const std::vector<BadDump> cases = {
      {"garbage", h + "0x0001: 00 ff\nwhat\n", 3, "not part of"},
      {"hop above ff", h + "0x0001: 00 100\n", 2, "above 0xff"},
      {"LID above 0xBFFF", h + "0xc000: 00 01\n", 2, "0xBFFF"},
      {"row before header", "0x0001: 00 01\n" + h, 1, "before"},
      {"duplicate switch", h + "0x0001: 00 01\n" + h, 3, "already listed"},
      {"duplicate LID", h + "0x0001: 00 01\n0x0001: 00 01\n", 3, "twice"},
      {"truncated row", h + "0x0001: 00 01 02\n0x0002: 01 0", 3, "truncated"},
      {"switch without rows", h + "\n", 2, "no rows"},
      {"no colon", h + "0x0001 00 01\n", 2, "':'"},
      {"no hops", h + "0x0001:\n", 2, "no hop"},
      {"bad guid", "Switch: guid 0xq\n", 1, "GUID"},
      {"empty", "# nothing\n", 1, "not a LID matrix"},
  };
  for (const BadDump& c : cases) {
    auto m = parse_lid_matrix(c.text, kMatrixPath);
    ASSERT_FALSE(m.ok()) << c.what;
    expect_error_at(m.error(), kErrLidMatrixSyntax, kMatrixPath, c.line);
    EXPECT_NE(m.error().message.find(c.says), std::string::npos)
        << c.what << ": " << m.error().message;
  }
  std::string many = h + "0x0001:";
  for (int i = 0; i < 257; ++i)
    many += " 01";
  auto m = parse_lid_matrix(many, kMatrixPath);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("256"), std::string::npos) << m.error().message;
}

TEST(FileEngine, RefusesLidMatricesThatDoNotFit) {
  Topology t = to_routing(test::parse_or_fail(test::kTwoSwitchesParallelLinks)).topo;
  t.switches[0].lid = 1;
  t.switches[1].lid = 3;
  const Lid ca_lids[] = {2, 4, 5, 6};
  for (std::size_t i = 0; i < 4; ++i)
    t.end_ports[i].base_lid = ca_lids[i];
  const std::string good = matrix_text(t);
  auto route = [&](const std::string& text) -> Result<Routes> {
    auto m = parse_lid_matrix(text, kMatrixPath);
    if (!m.ok()) return fail(m.error());
    return routes_from_lid_matrix(t, *m, kMatrixPath);
  };
  ASSERT_TRUE(route(good).ok());
  struct Case {
    const char* what;
    std::string text;
    const char* says;
  };
  const std::string sw2 = "Switch: guid 0x0000000000200001\n";
  const std::vector<Case> cases = {
      {"missing switch", good.substr(0, good.find(sw2)), "no block"},
      {"another fabric", "Switch: guid 0x00000000000000aa\n0x0001: 00\n", "another fabric"},
      {"hops through a CA port",
       replace_once(good, "0x0003: 01 ff ff 01 ff 01", "0x0003: 01 01 ff 01 ff 01"),
       "leads to no switch"},
      {"no hops to a reachable switch",
       replace_once(good, "0x0003: 01 ff ff 01 ff 01 ff ff ff # portguid 0x0000000000200001\n", ""),
       "no hops"},
  };
  for (const Case& c : cases) {
    auto r = route(c.text);
    ASSERT_FALSE(r.ok()) << c.what;
    EXPECT_EQ(r.error().id, kErrLidMatrixMismatch) << c.what << ": " << r.error().message;
    EXPECT_NE(r.error().message.find(c.says), std::string::npos)
        << c.what << ": " << r.error().message;
    EXPECT_EQ(r.error().message.rfind(std::string(kMatrixPath), 0), 0U) << r.error().message;
  }
  // Unknown switches and rows of non-switch LIDs are skipped with a warning.
  auto extra = route(good + "Switch: guid 0x00000000000000aa\n0x0001: 00\n");
  ASSERT_TRUE(extra.ok()) << to_string(extra.error());
  ASSERT_EQ(extra->warnings.size(), 1U);
  EXPECT_EQ(extra->warnings[0].id, kErrLidMatrixSkipped);
}

TEST(FileEngine, RefusesHopsThatDoNotLeadCloser) {
  // spine0 claims leaf1 is 1 hop away through its cables to leaf0 (and unreachable through
  // its own cables to leaf1): following it would bounce between leaf0 and spine0.
  const Topology t = fat_tree();
  auto m = parse_lid_matrix(matrix_text(t), kMatrixPath);
  ASSERT_TRUE(m.ok());
  ASSERT_EQ(t.switches[0].description, "spine0");
  ASSERT_EQ(t.switches[3].description, "leaf1");
  for (LidMatrixSwitch& b : m->switches) {
    if (b.guid != t.switches[0].guid) continue;
    for (LidMatrixRow& row : b.rows) {
      if (row.lid != t.switches[3].lid) continue;
      for (const Link& l : t.switches[0].links)
        row.hops[l.port] = l.peer == 2 ? 1 : kNoHops;
    }
  }
  auto r = routes_from_lid_matrix(t, *m, kMatrixPath);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().id, kErrLidMatrixMismatch);
  EXPECT_NE(r.error().message.find("not closer"), std::string::npos) << r.error().message;
}

// ---- fuzz: random mutations of valid dumps never crash the readers ----

constexpr char kAlphabet[] = "0123456789abcdefx: #\n-[]()'";

std::string mutate(std::string s, std::mt19937& rng) {
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits && !s.empty(); ++e) {
    const std::size_t at = rng() % s.size();
    switch (rng() % 6) {
      case 0:
        s.erase(at, 1 + rng() % 8);
        break;
      case 1:
        s.insert(at, 1, static_cast<char>(rng() % 256));
        break;
      case 2:
        s[at] = kAlphabet[rng() % (sizeof kAlphabet - 1)];
        break;
      case 3:
        s.resize(at);  // truncated file
        break;
      case 4: {  // a line repeated
        const std::size_t b = s.rfind('\n', at), en = s.find('\n', at);
        const std::size_t from = b == std::string::npos ? 0 : b + 1;
        if (en != std::string::npos) s.insert(from, s.substr(from, en + 1 - from));
        break;
      }
      default:
        s.insert(at, std::to_string(rng()));
        break;
    }
  }
  return s;
}

TEST(FileEngine, FuzzedDumpsFailCleanly) {
  const Topology t = fat_tree();
  const std::string lfts = dump_text(t, test::route_with(t));
  const std::string ibroute = ibroute_text(t, test::route_with(t));
  const std::string matrix = matrix_text(t);
  std::mt19937 rng(20261123);
  std::size_t refused = 0;
  for (int i = 0; i < 1500; ++i) {
    const std::string& base = i % 3 == 0 ? lfts : (i % 3 == 1 ? ibroute : matrix);
    const std::string text = mutate(base, rng);
    auto r = i % 3 == 2 ? run_file_engine(t, "", text) : run_file_engine(t, text, "");
    if (r.ok()) continue;
    ++refused;
    const ErrorId id = r.error().id;
    EXPECT_TRUE(id == kErrLftDumpSyntax || id == kErrLftDumpMismatch || id == kErrLidMatrixSyntax ||
                id == kErrLidMatrixMismatch || id == kErrFileEngineEmptyInput)
        << to_string(r.error());
    EXPECT_EQ(r.error().message.find('/'), 0U) << "names the file: " << r.error().message;
  }
  EXPECT_GT(refused, 500U);
}

}  // namespace
}  // namespace ibsm::routing
