// The status page and its parts on fabrics made in process (tests/fake): one element
// per switch with its GUID, hosts summed per leaf, tiers for fat trees and a graph
// otherwise, error levels from two counter snapshots, escaping, and the size of the
// page on the 5832-host fat tree. Also the gzip pieces /metrics is joined from.
#include <gtest/gtest.h>
#include <zlib.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "cabling/deviation.hpp"
#include "metrics/exposition.hpp"
#include "metrics/gzip_join.hpp"
#include "metrics/port_errors.hpp"
#include "metrics/precomputed.hpp"
#include "metrics/status_page.hpp"
#include "metrics/topology_layout.hpp"
#include "tests/fake/fake_ops_snapshot.hpp"
#include "tests/support/builders.hpp"
#include "tests/support/log_capture.hpp"

namespace ibsm::metrics {
namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

// data-guid values, in order.
std::vector<std::string> switch_guids(const std::string& page) {
  std::vector<std::string> out;
  const std::regex re("data-guid=\"(0x[0-9a-f]{16})\"");
  for (auto it = std::sregex_iterator(page.begin(), page.end(), re); it != std::sregex_iterator();
       ++it)
    out.push_back((*it)[1]);
  return out;
}

std::string page_of(const ops::OpsSnapshot& s, const ErrorTotals* before = nullptr) {
  const auto parts = status_parts(s, before);
  return status_page(s, parts.get());
}

std::string inflate_gzip(const std::string& gz) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  std::string out;
  char buf[65536];
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
  }
  EXPECT_EQ(rc, Z_STREAM_END) << "the CRC or length of the trailer is checked here too";
  EXPECT_EQ(z.avail_in, 0u);
  inflateEnd(&z);
  return out;
}

TEST(StatusPage, FatTreeHasOneElementPerSwitchInTiersAndHostsPerLeaf) {
  const auto fabric = testsupport::two_level_fat_tree(4, 3, 2);
  const auto s = fake::ops_snapshot_of(fabric);
  const std::string page = page_of(*s);
  std::set<std::string> expected;
  for (const auto& n : fabric.nodes)
    if (n.type == testsupport::NodeType::kSwitch)
      expected.insert(fmt::format("0x{:016x}", n.node_guid));
  const auto got = switch_guids(page);
  EXPECT_EQ(got.size(), expected.size());
  EXPECT_EQ(std::set<std::string>(got.begin(), got.end()), expected);
  EXPECT_NE(page.find("data-layout=\"tiers\""), std::string::npos);
  EXPECT_EQ(count(page, "data-tier=\"0\""), 4u);
  EXPECT_EQ(count(page, "data-tier=\"1\""), 2u);
  EXPECT_EQ(count(page, "data-hosts=\"3\""), 4u);  // one summary per leaf
  EXPECT_NE(page.find("id=\"switches\">6<"), std::string::npos);
  EXPECT_NE(page.find("id=\"cas\">12<"), std::string::npos);
  EXPECT_NE(page.find("id=\"sm-state\">MASTER<"), std::string::npos) << page.substr(0, 3000);
  EXPECT_NE(page.find("id=\"no-errors\""), std::string::npos);
  // Nothing from elsewhere.
  EXPECT_EQ(page.find("src="), std::string::npos);
  EXPECT_EQ(page.find("https:"), std::string::npos);
}

TEST(StatusPage, SpinesSitAboveTheirLeavesInOrder) {
  const auto s = fake::ops_snapshot_of(testsupport::kary_ntree(2, 3));
  const TopologyLayout l = lay_out(*s->fabric);
  ASSERT_TRUE(l.tiered);
  EXPECT_EQ(l.tiers, 3);
  for (const auto& k : l.links)
    EXPECT_LT(std::abs(l.switches[k.a].y - l.switches[k.b].y) - kTierGap, 1e-9);
  for (const auto& sw : l.switches)
    EXPECT_NEAR(sw.y, kMargin + kSwitchSize / 2 + (2 - sw.tier) * kTierGap, 1e-9);
}

TEST(StatusPage, TorusIsDrawnAsAGraph) {
  const auto s = fake::ops_snapshot_of(testsupport::torus({3, 3, 3}, 1));
  const TopologyLayout l = lay_out(*s->fabric);
  EXPECT_FALSE(l.tiered);
  ASSERT_EQ(l.switches.size(), 27u);
  std::set<std::pair<long, long>> spots;
  for (const auto& sw : l.switches) {
    EXPECT_GE(sw.x, 0);
    EXPECT_LE(sw.x, l.width);
    EXPECT_GE(sw.y, 0);
    EXPECT_LE(sw.y, l.height);
    spots.emplace(std::lround(sw.x), std::lround(sw.y));
  }
  EXPECT_EQ(spots.size(), 27u) << "two switches drawn on the same spot";
  const std::string page = page_of(*s);
  EXPECT_NE(page.find("data-layout=\"graph\""), std::string::npos);
  EXPECT_EQ(switch_guids(page).size(), 27u);
}

TEST(StatusPage, ErrorLevelsFollowTheIncreaseBetweenTwoSweeps) {
  const auto s = fake::ops_snapshot_of(testsupport::two_level_fat_tree(2, 2, 1));
  const auto first = s->perf_counters;
  // Port 0 of the rows: +120 errors in 60 s (2/s, high); port 3: +6 (rising).
  auto later = std::make_shared<perfmgr::CounterSnapshot>(*fake::counters_later(*first, 60, 0, 0));
  later->ports[0].err[perfmgr::Err::kRcv] += 120;
  later->ports[3].err[perfmgr::Err::kSymbol] += 6;
  later->ports[5].err[perfmgr::Err::kXmitWait] += 1000;  // congestion, not an error
  const ErrorTotals before = error_totals(*first);
  const PortErrors e = port_errors(later, &before);
  ASSERT_EQ(e.rows.size(), 2u);
  EXPECT_EQ(e.rows[0].port, &later->ports[0]);
  EXPECT_EQ(e.rows[0].level, ErrorLevel::kHigh);
  EXPECT_DOUBLE_EQ(e.rows[0].per_second, 2.0);
  EXPECT_EQ(e.rows[1].level, ErrorLevel::kRising);
  EXPECT_EQ(e.level(later->ports[5].guid, later->ports[5].port), ErrorLevel::kNone);
  // One sweep later with nothing new: errors of the past.
  const ErrorTotals middle = error_totals(*later);
  const auto quiet = fake::counters_later(*later, 60, 0, 0);
  const PortErrors q = port_errors(quiet, &middle);
  ASSERT_EQ(q.rows.size(), 2u);
  EXPECT_EQ(q.rows[0].level, ErrorLevel::kPast);
  // The first sweep: no rate yet, but errors show.
  EXPECT_EQ(port_errors(later, nullptr).rows[0].level, ErrorLevel::kRising);

  s->perf_counters = later;
  const std::string page = page_of(*s, &before);
  const auto& p0 = later->ports[0];
  EXPECT_NE(page.find(fmt::format("<tr class=\"err high\" data-node=\"0x{:016x}\" data-port=\"{}\"",
                                  p0.guid, p0.port)),
            std::string::npos);
  EXPECT_NE(page.find("PortRcvErrors 120"), std::string::npos);
  EXPECT_EQ(count(page, "<tr class=\"err "), 2u);
  // The link (or host summary) and the switch at that port are drawn as erring.
  EXPECT_GE(count(page, "class=\"link high\"") + count(page, "class=\"hosts high\""), 1u);
  EXPECT_EQ(count(page, "class=\"sw high\""), p0.is_switch ? 1u : 0u);
}

TEST(StatusPage, NamesFromTheFabricAreEscaped) {
  auto fabric = testsupport::two_level_fat_tree(1, 1, 1);
  fabric.nodes[0].description = "<script>alert(1)</script>&\"x\"";
  const auto s = fake::ops_snapshot_of(fabric);
  auto counters = std::make_shared<perfmgr::CounterSnapshot>(*s->perf_counters);
  for (auto& r : counters->ports)
    r.err[perfmgr::Err::kRcv] = 1;
  s->perf_counters = counters;
  const std::string page = page_of(*s);
  EXPECT_EQ(page.find("<script>alert"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;x&quot;"),
            std::string::npos);
  EXPECT_EQ(count(page, "<script>"), 1u);  // the refresh script only
}

// The health and cabling sections (issue 35): each unhealthy port and deviation is one
// row naming both ends, a hostile name is text everywhere, and no status says so.
TEST(StatusPage, UnhealthyPortsDeviationsAndDegradedLinksNameBothEnds) {
  const std::string hostile = "</td><script>alert(\"x\")</script>\n'q' & more";
  auto h = std::make_shared<ops::HealthStatus>();
  ops::UnhealthyPort p;
  p.node_guid = 0x200002;
  p.port = 3;
  p.node_name = hostile;
  p.condition = "flapping";
  p.action = "report";
  p.asked = "isolate";
  p.downgrade = "cap";
  p.detail = "flapped in 5 of the last 30 sweeps";
  p.remote_guid = 0x200000;
  p.remote_port = 1;
  p.remote_name = "spine1";
  h->ports = {p};
  h->max_isolated = 10;
  h->policy_file = "/etc/opensm/health-policy.conf";
  h->policy_ok = false;
  h->policy_error = "IBSM-2307: <line 4>";
  auto c = std::make_shared<ops::CablingStatus>();
  c->file = "/etc/opensm/topo.ibnetdiscover";
  c->file_loaded = true;
  c->checked = true;
  const cabling::Deviation moved{cabling::DeviationKind::kWrongNode,
                                 {0x100004, 1, "h3"},
                                 {0x200002, 5, hostile},
                                 "\"leaf2\"[1]",
                                 "\"leaf1\"[5]"};
  const cabling::Deviation narrow{cabling::DeviationKind::kWidthMismatch,
                                  {0x200000, 1, "spine1"},
                                  {0x200002, 3, "leaf1"},
                                  "4x",
                                  "1x"};
  c->deviations = {moved, narrow};
  c->degraded = {narrow};
  ops::OpsSnapshot s;
  s.health = h;
  s.cabling = c;
  const std::string page = status_page(s, nullptr);

  EXPECT_NE(page.find("<section id=\"health\">"), std::string::npos);
  EXPECT_NE(page.find("1 unhealthy, 0 isolated (at most 10)."), std::string::npos) << page;
  EXPECT_NE(page.find("in error, the last good policy stays: IBSM-2307: &lt;line 4&gt;"),
            std::string::npos);
  EXPECT_EQ(count(page,
                  "<tr class=\"unhealthy report\" data-node=\"0x0000000000200002\" "
                  "data-port=\"3\">"),
            1u)
      << page;
  EXPECT_NE(page.find("<td>report (asked isolate: cap)</td>"), std::string::npos);
  EXPECT_NE(page.find("<td>spine1 <span class=\"guid\">0x0000000000200000[1]</span></td>"),
            std::string::npos);
  EXPECT_EQ(count(page,
                  "<tr class=\"deviation wrong_node\" data-node=\"0x0000000000100004\" "
                  "data-port=\"1\">"),
            1u);
  // The width mismatch is both a deviation and a degraded link.
  EXPECT_EQ(count(page, "<tr class=\"deviation width_mismatch\" data-node=\"0x0000000000200000\""),
            2u);
  EXPECT_NE(page.find("2 deviations at the heavy sweep"), std::string::npos);
  EXPECT_NE(page.find("1 links below the best width or speed"), std::string::npos);
  // Hostile names: escaped wherever they appear, never markup.
  EXPECT_EQ(count(page, "<script>"), 1u);  // the refresh script only
  EXPECT_EQ(page.find("</td><script>"), std::string::npos);
  EXPECT_EQ(count(page, "&lt;/td&gt;&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"), 2u);
  EXPECT_EQ(count(page, "&lt;/script&gt; &#39;q&#39; &amp; more"), 2u);  // the newline a blank
}

TEST(StatusPage, WithoutHealthOrCablingStatusTheSectionsSaySo) {
  ops::OpsSnapshot s;
  const std::string page = status_page(s, nullptr);
  EXPECT_NE(page.find("0 unhealthy, 0 isolated"), std::string::npos);
  EXPECT_EQ(page.find("Health checks are off"), std::string::npos);
  EXPECT_NE(page.find("No topo_config_file"), std::string::npos);
  EXPECT_NE(page.find("No heavy sweep has checked the links yet"), std::string::npos);
  EXPECT_EQ(count(page, "<tr class=\"unhealthy"), 0u);
}

TEST(StatusPage, NoFabricYet) {
  ops::OpsSnapshot s;
  const std::string page = status_page(s, nullptr);
  EXPECT_NE(page.find("No fabric yet"), std::string::npos);
  EXPECT_NE(page.find("The PerfMgr is off"), std::string::npos);
  EXPECT_EQ(switch_guids(page).size(), 0u);
}

TEST(StatusPage, NaturalOrder) {
  EXPECT_TRUE(natural_less("sw2", "sw10"));
  EXPECT_FALSE(natural_less("sw10", "sw2"));
  EXPECT_TRUE(natural_less("leaf1 a", "leaf1 b"));
  EXPECT_TRUE(natural_less("s", "s1"));
  EXPECT_FALSE(natural_less("s1", "s1"));
  EXPECT_TRUE(natural_less("x007", "x8"));
}

// kary-18-3-5832's shape: 972 switches, 5832 hosts. The page stays a few thousand
// elements (hosts summed per leaf, links without errors in one path) and well under
// a megabyte; measured sizes are printed (docs/benchmarks.md).
TEST(StatusPage, FiveThousandEightHundredThirtyTwoHosts) {
  const auto s = fake::ops_snapshot_of(testsupport::kary_ntree(18, 3));
  const ErrorTotals before = error_totals(*s->perf_counters);
  s->perf_counters = fake::counters_later(*s->perf_counters, 60, 5, 101);
  const auto t0 = std::chrono::steady_clock::now();
  const std::string page = page_of(*s, &before);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto guids = switch_guids(page);
  EXPECT_EQ(guids.size(), 972u);
  EXPECT_EQ(std::set<std::string>(guids.begin(), guids.end()).size(), 972u);
  EXPECT_EQ(count(page, "data-hosts=\"18\""), 324u);
  EXPECT_EQ(count(page, "data-tier=\"2\""), 324u);
  // Elements: every start tag.
  const std::size_t elements = count(page, "<") - count(page, "</") - count(page, "<!");
  EXPECT_LT(elements, 10000u);
  EXPECT_LT(page.size(), 2'000'000u);
  EXPECT_EQ(count(page, "<tr class=\"err "), kMaxErrorRows);
  std::printf("status page of 5832 hosts: %zu bytes, %zu elements, %.3f s\n", page.size(), elements,
              secs);
  RecordProperty("bytes", std::to_string(page.size()));
  RecordProperty("elements", std::to_string(elements));
}

TEST(GzipJoin, PiecesJoinIntoOneMember) {
  const auto s = fake::ops_snapshot_of(testsupport::two_level_fat_tree(3, 4, 2));
  const std::string text = render(*s);
  Exposition e(s);
  Deflater counters(1);
  for (std::size_t i = 1; i < e.parts(); ++i)
    counters.add(e.part(i));
  const DeflatedPiece tail = counters.finish(true);
  Deflater sm(6);
  sm.add(e.part(0));
  const DeflatedPiece head = sm.finish(false);
  const std::string gz = gzip_header() + head.bytes + tail.bytes + gzip_trailer(head, &tail);
  EXPECT_EQ(inflate_gzip(gz), text);
  // Alone (no PerfMgr): the head piece is the last.
  Deflater only(6);
  only.add(e.part(0));
  const DeflatedPiece whole = only.finish(true);
  EXPECT_EQ(inflate_gzip(gzip_header() + whole.bytes + gzip_trailer(whole, nullptr)), e.part(0));
}

TEST(GzipJoin, AcceptEncoding) {
  for (const char* yes : {"gzip", "gzip, deflate, br", "deflate, GZip", "br;q=1, gzip;q=0.5", "*",
                          "x-gzip", "gzip;q=1.0"})
    EXPECT_TRUE(accepts_gzip(yes)) << yes;
  for (const char* no :
       {"", "identity", "deflate, br", "gzip;q=0", "gzip; q=0.000, identity", "gzipx", "*;q=0"})
    EXPECT_FALSE(accepts_gzip(no)) << no;
}

// The endpoint's thread: parts and the compressed counters follow the published
// snapshot; error rates come from the counters before; while a big fabric is
// rebuilt (no fabric published) the last picture stays.
TEST(Precomputed, FollowsThePublishedSnapshots) {
  ops::OpsPublisher publisher;
  std::ostringstream sink;
  Precomputed pre(publisher, testsupport::capture_log(sink, "metrics", spdlog::level::info));
  pre.refresh();  // nothing published: nothing made
  auto first = fake::ops_snapshot_of(testsupport::two_level_fat_tree(2, 2, 1));
  publisher.publish(first);
  pre.refresh();
  const auto gz1 = pre.counters_gzip(first->perf_counters);
  ASSERT_TRUE(gz1);
  EXPECT_EQ(gz1->size, render(*first).size() - Exposition(first).part(0).size());
  const auto parts1 = pre.status_parts(*first);
  EXPECT_TRUE(parts_match(*parts1, *first));
  EXPECT_EQ(pre.status_parts(*first), parts1);  // made once

  // The next PerfMgr sweep: errors on one port, rising at 2/s.
  auto second = std::make_shared<ops::OpsSnapshot>(*first);
  auto c = std::make_shared<perfmgr::CounterSnapshot>(
      *fake::counters_later(*first->perf_counters, 60, 0, 0));
  c->ports[1].err[perfmgr::Err::kLinkIntegrity] += 120;
  second->perf_counters = c;
  publisher.publish(second);
  EXPECT_FALSE(pre.counters_gzip(second->perf_counters));  // not made yet
  pre.refresh();
  EXPECT_TRUE(pre.counters_gzip(second->perf_counters));
  EXPECT_FALSE(pre.counters_gzip(first->perf_counters));
  const auto parts2 = pre.status_parts(*second);
  EXPECT_NE(parts2->errors_html.find("<tr class=\"err high\""), std::string::npos);

  // The SM let go of the fabric while it builds the next: the picture stays.
  auto third = std::make_shared<ops::OpsSnapshot>(*second);
  third->fabric = nullptr;
  publisher.publish(third);
  EXPECT_EQ(pre.status_parts(*third), parts2);
  EXPECT_NE(status_page(*third, parts2.get()).find("id=\"switches\">3<"), std::string::npos);
  EXPECT_EQ(sink.str().find("IBSM-8703"), std::string::npos);
}

}  // namespace
}  // namespace ibsm::metrics
