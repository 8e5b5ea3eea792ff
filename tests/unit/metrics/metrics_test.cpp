// The Prometheus exposition of a hand-made snapshot (names, labels, escaping, HELP
// and TYPE lines, histogram buckets) and the HTTP endpoint on a loopback port.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include <spdlog/fmt/fmt.h>

#include "metrics/endpoint.hpp"
#include "metrics/errors.hpp"
#include "metrics/exposition.hpp"
#include "sm/health/health_types.hpp"
#include "tests/support/log_capture.hpp"

namespace ibsm::metrics {
namespace {

using ops::OpsSnapshot;

std::shared_ptr<OpsSnapshot> snapshot_with_counters() {
  auto s = std::make_shared<OpsSnapshot>();
  s->version = "0.1.0";
  s->state = mad::SmState::kMaster;
  s->priority = 7;
  s->port_guid = 0x0002c90300000001ull;
  s->smp.sent = 120;
  s->smp.received = 118;
  s->smp.timeouts = 2;
  s->smp.retries = 3;
  s->sweep_durations[0].observe(0.02);
  s->sweep_durations[1].observe(0.3);
  s->sweep_durations[1].observe(4.0);
  s->perfmgr_enabled = true;
  auto c = std::make_shared<perfmgr::CounterSnapshot>();
  perfmgr::PortCounterRow r;
  r.guid = 0x0008f10400411a08ull;
  r.name = "leaf \"1\"\\a\nb";
  r.is_switch = true;
  r.port = 3;
  r.remote_valid = true;
  r.remote_guid = 0x0002c90300000001ull;
  r.remote_name = "node1 mlx5_0";
  r.remote_port = 1;
  r.link_width_active = 2;      // 4x
  r.link_speed_ext_active = 2;  // EDR
  r.err[perfmgr::Err::kRcv] = 5;
  r.data[perfmgr::Data::kXmitData] = 123456789012ull;
  c->ports.push_back(r);
  perfmgr::PortCounterRow ca;
  ca.guid = 0x0002c90300000001ull;
  ca.name = "node1 mlx5_0";
  ca.port = 1;
  c->ports.push_back(ca);
  c->sweeps = 4;
  c->last_sweep_seconds = 0.5;
  s->perf_counters = c;
  return s;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    out.push_back(l);
  return out;
}

bool has_line(const std::string& text, const std::string& line) {
  for (const auto& l : lines(text))
    if (l == line) return true;
  return false;
}

TEST(Exposition, PortCountersUseTheInfinibandExporterNamesAndLabels) {
  const std::string t = render(*snapshot_with_counters());
  const std::string sw =
      "component=\"switch\",local_guid=\"0x0008f10400411a08\",local_name=\"leaf "
      "\\\"1\\\"\\\\a\\nb\",local_port=\"3\",remote_guid=\"0x0002c90300000001\",remote_name="
      "\"node1 mlx5_0\",remote_port=\"1\"";
  EXPECT_TRUE(has_line(t, "infiniband_portrcverrors_total{" + sw + "} 5")) << t;
  EXPECT_TRUE(has_line(t, "infiniband_portxmitdata_total{" + sw + "} 123456789012"));
  EXPECT_TRUE(has_line(t, "infiniband_symbolerrorcounter_total{" + sw + "} 0"));
  EXPECT_TRUE(has_line(t, "infiniband_excessivebufferoverrunerrors_total{" + sw + "} 0"));
  EXPECT_TRUE(has_line(t, "infiniband_portmulticastrcvpkts_total{" + sw + "} 0"));
  EXPECT_TRUE(has_line(t, "infiniband_width{" + sw + "} 4"));
  EXPECT_TRUE(has_line(t, "infiniband_speed{" + sw + "} 25.78125"));
  EXPECT_TRUE(has_line(t, "# TYPE infiniband_portrcverrors_total counter"));
  EXPECT_TRUE(has_line(t, "# TYPE infiniband_speed gauge"));
  // A CA port without a known peer: empty remote labels, no link gauges.
  const std::string ca =
      "component=\"ca\",local_guid=\"0x0002c90300000001\",local_name=\"node1 mlx5_0\","
      "local_port=\"1\",remote_guid=\"\",remote_name=\"\",remote_port=\"\"";
  EXPECT_TRUE(has_line(t, "infiniband_portrcverrors_total{" + ca + "} 0"));
  EXPECT_EQ(t.find("infiniband_width{" + ca), std::string::npos);
}

TEST(Exposition, EveryFamilyHasOneHelpAndTypeBeforeItsSamples) {
  const std::string t = render(*snapshot_with_counters());
  std::map<std::string, std::string> type_of;
  std::set<std::string> helped;
  for (const auto& l : lines(t)) {
    ASSERT_FALSE(l.empty());
    if (l.rfind("# HELP ", 0) == 0) {
      const std::string name = l.substr(7, l.find(' ', 7) - 7);
      EXPECT_TRUE(helped.insert(name).second) << "two HELP lines for " << name;
      continue;
    }
    if (l.rfind("# TYPE ", 0) == 0) {
      const std::string rest = l.substr(7);
      const std::string name = rest.substr(0, rest.find(' '));
      EXPECT_TRUE(type_of.emplace(name, rest.substr(rest.find(' ') + 1)).second)
          << "two TYPE lines for " << name;
      continue;
    }
    std::string name = l.substr(0, l.find_first_of("{ "));
    for (const char* suffix : {"_bucket", "_sum", "_count"})
      if (!type_of.count(name) && name.size() > std::strlen(suffix) &&
          name.compare(name.size() - std::strlen(suffix), std::string::npos, suffix) == 0)
        name.resize(name.size() - std::strlen(suffix));
    ASSERT_TRUE(type_of.count(name)) << "sample before its TYPE: " << l;
    EXPECT_TRUE(helped.count(name)) << l;
    if (type_of[name] == "counter") {
      EXPECT_TRUE(name.size() > 6 && name.substr(name.size() - 6) == "_total") << name;
    }
  }
}

TEST(Exposition, SmMetrics) {
  const std::string t = render(*snapshot_with_counters());
  EXPECT_TRUE(has_line(t, "ibsm_sm_state{state=\"master\"} 1"));
  EXPECT_TRUE(has_line(t, "ibsm_sm_state{state=\"standby\"} 0"));
  EXPECT_TRUE(has_line(t, "ibsm_sm_priority 7"));
  EXPECT_TRUE(has_line(t, "ibsm_mads_sent_total{class=\"subn_mgt\"} 120"));
  EXPECT_TRUE(has_line(t, "ibsm_mads_timed_out_total{class=\"subn_mgt\"} 2"));
  EXPECT_TRUE(has_line(t, "ibsm_mads_retried_total{class=\"subn_mgt\"} 3"));
  EXPECT_TRUE(has_line(t, "# TYPE ibsm_sweep_duration_seconds histogram"));
  EXPECT_TRUE(has_line(t, "ibsm_sweep_duration_seconds_bucket{kind=\"heavy\",le=\"0.25\"} 0"));
  EXPECT_TRUE(has_line(t, "ibsm_sweep_duration_seconds_bucket{kind=\"heavy\",le=\"0.5\"} 1"));
  EXPECT_TRUE(has_line(t, "ibsm_sweep_duration_seconds_bucket{kind=\"heavy\",le=\"5\"} 2"));
  EXPECT_TRUE(has_line(t, "ibsm_sweep_duration_seconds_bucket{kind=\"heavy\",le=\"+Inf\"} 2"));
  EXPECT_TRUE(has_line(t, "ibsm_sweep_duration_seconds_count{kind=\"heavy\"} 2"));
  EXPECT_TRUE(has_line(t, "ibsm_sweep_duration_seconds_sum{kind=\"heavy\"} 4.3"));
  EXPECT_TRUE(has_line(t, "ibsm_sweep_duration_seconds_count{kind=\"light\"} 1"));
  EXPECT_TRUE(has_line(t, "ibsm_perfmgr_enabled 1"));
  EXPECT_TRUE(has_line(t, "ibsm_perfmgr_sweeps_total 4"));
  EXPECT_TRUE(has_line(t, "ibsm_perfmgr_last_sweep_duration_seconds 0.5"));
}

// What docs/security.md's attackers are refused, for alerts: SA requests at a bound, MAD
// answers that matched no request.
TEST(Exposition, RefusalsOfHostilePeersAreCounted) {
  auto s = snapshot_with_counters();
  s->sa_refused.service_records = 9000;
  s->sa_refused.mcast_groups = 1744;
  s->smp.mismatched = 3;
  s->perf_answers_refused = 2;
  const std::string t = render(*s);
  EXPECT_TRUE(has_line(t, "# TYPE ibsm_sa_requests_refused_total counter"));
  EXPECT_TRUE(has_line(t, "ibsm_sa_requests_refused_total{resource=\"service_records\"} 9000"));
  EXPECT_TRUE(has_line(t, "ibsm_sa_requests_refused_total{resource=\"inform_infos\"} 0"));
  EXPECT_TRUE(has_line(t, "ibsm_sa_requests_refused_total{resource=\"mcast_groups\"} 1744"));
  EXPECT_TRUE(has_line(t, "# TYPE ibsm_mad_answers_refused_total counter"));
  EXPECT_TRUE(has_line(t, "ibsm_mad_answers_refused_total{class=\"subn_mgt\"} 3"));
  EXPECT_TRUE(has_line(t, "ibsm_mad_answers_refused_total{class=\"perf_mgt\"} 2"));
}

TEST(Exposition, TopologyDeviationsHaveEveryKindAndDegradedLinksACount) {
  OpsSnapshot s;
  std::string t = render(s);  // before any check: every kind, at 0
  EXPECT_TRUE(has_line(t, "# TYPE ibsm_topology_deviations gauge")) << t;
  for (const char* k : {"missing_link", "extra_link", "wrong_port", "wrong_node", "missing_node",
                        "extra_node", "width_mismatch", "speed_mismatch"})
    EXPECT_TRUE(has_line(t, std::string("ibsm_topology_deviations{kind=\"") + k + "\"} 0")) << k;
  EXPECT_TRUE(has_line(t, "ibsm_degraded_links 0"));
  auto c = std::make_shared<ops::CablingStatus>();
  const cabling::Deviation port{
      cabling::DeviationKind::kWrongPort, {1, 1, "a"}, {2, 1, "b"}, "", ""};
  const cabling::Deviation width{
      cabling::DeviationKind::kWidthMismatch, {3, 1, "c"}, {4, 2, "d"}, "4x", "1x"};
  c->deviations = {port, port, width};
  c->degraded = {width};
  s.cabling = c;
  t = render(s);
  EXPECT_TRUE(has_line(t, "ibsm_topology_deviations{kind=\"wrong_port\"} 2")) << t;
  EXPECT_TRUE(has_line(t, "ibsm_topology_deviations{kind=\"width_mismatch\"} 1"));
  EXPECT_TRUE(has_line(t, "ibsm_topology_deviations{kind=\"missing_link\"} 0"));
  EXPECT_TRUE(has_line(t, "ibsm_degraded_links 1"));
}

TEST(Exposition, UnhealthyPortsByConditionAndActionWithEveryPairAlwaysPresent) {
  OpsSnapshot s;  // no health status (an older snapshot): checks on, no port
  std::string t = render(s);
  EXPECT_TRUE(has_line(t, "# TYPE ibsm_unhealthy_ports gauge")) << t;
  EXPECT_TRUE(has_line(t, "ibsm_health_checks_enabled 1"));
  // Every condition of sm/health with every action that does something, at 0: the
  // exposition's copy of the words agrees with the health policy's.
  std::size_t pairs = 0;
  for (const auto c : sm::health::kAllConditions)
    for (const auto a : {sm::health::Action::kReport, sm::health::Action::kIsolate,
                         sm::health::Action::kNoDiscover, sm::health::Action::kDisable}) {
      EXPECT_TRUE(
          has_line(t, fmt::format("ibsm_unhealthy_ports{{condition=\"{}\",action=\"{}\"}} 0",
                                  sm::health::condition_name(c), sm::health::action_name(a))))
          << sm::health::condition_name(c) << " " << sm::health::action_name(a);
      ++pairs;
    }
  std::size_t samples = 0;
  for (const auto& l : lines(t))
    samples += l.starts_with("ibsm_unhealthy_ports{") ? 1 : 0;
  EXPECT_EQ(samples, pairs);

  auto h = std::make_shared<ops::HealthStatus>();
  h->enabled = false;
  ops::UnhealthyPort p;
  p.condition = "flapping";
  p.action = "isolate";
  p.node_name = "x\"}\n";  // names are no label here: nothing of it shows
  h->ports = {p, p};
  p.condition = "noisy";
  p.action = "report";
  h->ports.push_back(p);
  p.condition = "new\"cond";  // a word this list does not know yet: shown, escaped
  p.action = "ignore";
  h->ports.push_back(p);
  s.health = h;
  t = render(s);
  EXPECT_TRUE(has_line(t, "ibsm_health_checks_enabled 0")) << t;
  EXPECT_TRUE(has_line(t, "ibsm_unhealthy_ports{condition=\"flapping\",action=\"isolate\"} 2"));
  EXPECT_TRUE(has_line(t, "ibsm_unhealthy_ports{condition=\"noisy\",action=\"report\"} 1"));
  EXPECT_TRUE(has_line(t, "ibsm_unhealthy_ports{condition=\"flapping\",action=\"report\"} 0"));
  EXPECT_TRUE(has_line(t, "ibsm_unhealthy_ports{condition=\"new\\\"cond\",action=\"ignore\"} 1"))
      << t;
  EXPECT_EQ(t.find("x\"}"), std::string::npos);
}

TEST(Exposition, NoPerfMgrNoPortCounters) {
  OpsSnapshot s;
  const std::string t = render(s);
  EXPECT_EQ(t.find("infiniband_"), std::string::npos);
  EXPECT_TRUE(has_line(t, "ibsm_perfmgr_enabled 0"));
}

// kary-18-3-5832's size: 5832 CA ports and 972 switches of 36 ports (measured, not
// timed against a bound: the machine is shared).
TEST(Exposition, BigFabricHasOneSamplePerPortAndCounter) {
  auto s = snapshot_with_counters();
  auto c = std::make_shared<perfmgr::CounterSnapshot>(*s->perf_counters);
  const perfmgr::PortCounterRow proto = c->ports[0];
  c->ports.clear();
  for (unsigned i = 0; i < 5832 + 972 * 36; ++i) {
    perfmgr::PortCounterRow r = proto;
    r.guid += i / 36;
    r.port = i % 36 + 1;
    c->ports.push_back(r);
  }
  s->perf_counters = c;
  const auto t0 = std::chrono::steady_clock::now();
  const std::string t = render(*s);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::size_t port_lines = 0;
  for (std::size_t at = t.find("\ninfiniband_"); at != std::string::npos;
       at = t.find("\ninfiniband_", at + 1))
    ++port_lines;
  EXPECT_EQ(port_lines, c->ports.size() * (perfmgr::kErrCount + perfmgr::kDataCount + 2));
  RecordProperty("render_seconds", std::to_string(secs));
  RecordProperty("bytes", std::to_string(t.size()));
  std::printf("render of %zu ports: %.3f s, %zu bytes\n", c->ports.size(), secs, t.size());
}

TEST(ListenAddress, Parses) {
  auto a = parse_listen("127.0.0.1:9683");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.value().host, "127.0.0.1");
  EXPECT_EQ(a.value().port, 9683);
  auto b = parse_listen("[::1]:80");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b.value().host, "::1");
  for (const char* bad : {"", "9683", ":9683", "localhost:", "localhost:0", "localhost:65536",
                          "::1:9683", "[::1:9683", "host:12x"}) {
    auto r = parse_listen(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().id, kErrMetricsListen) << bad;
  }
}

class Endpoint : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(endpoint_.start({"127.0.0.1", 0}).ok());
    port_ = endpoint_.port();
  }
  // Sends raw bytes, returns what the server answers before closing (up to 64 KiB).
  std::string raw(const std::string& bytes) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port_);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval tv{10, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    static_cast<void>(::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL));
    ::shutdown(fd, SHUT_WR);
    std::string out;
    char buf[4096];
    for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0 && out.size() < 65536;)
      out.append(buf, static_cast<std::size_t>(n));
    ::close(fd);
    return out;
  }
  ops::OpsPublisher publisher_;
  std::ostringstream log_text_;
  MetricsEndpoint endpoint_{publisher_,
                            testsupport::capture_log(log_text_, "metrics", spdlog::level::info)};
  std::uint16_t port_ = 0;
};

TEST_F(Endpoint, ServesThePublishedSnapshot) {
  httplib::Client c("127.0.0.1", port_);
  auto before = c.Get("/metrics");
  ASSERT_TRUE(before);
  EXPECT_EQ(before->status, 503);  // nothing published yet
  publisher_.publish(snapshot_with_counters());
  auto r = c.Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(r->body, render(*publisher_.current()));
}

// Prometheus asks for gzip: once the background thread has compressed the counters
// (the answer then says Vary), the answer inflates to exactly the exposition.
TEST_F(Endpoint, GzipAnswerIsTheExposition) {
  publisher_.publish(snapshot_with_counters());
  httplib::Client c("127.0.0.1", port_);
  const httplib::Headers gzip{{"Accept-Encoding", "gzip"}};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  auto r = c.Get("/metrics", gzip);
  while (r && !r->has_header("Vary") && std::chrono::steady_clock::now() < deadline)
    r = c.Get("/metrics", gzip);
  ASSERT_TRUE(r);
  ASSERT_TRUE(r->has_header("Vary")) << "the counters were never compressed";
  EXPECT_EQ(r->get_header_value("Content-Encoding"), "gzip");
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(r->body, render(*publisher_.current()));  // the client inflated it
  // Without gzip: the plain stream.
  auto plain = c.Get("/metrics", httplib::Headers{{"Accept-Encoding", "identity"}});
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->has_header("Content-Encoding"));
  EXPECT_EQ(plain->body, render(*publisher_.current()));
}

// "gzip;q=0" refuses gzip (RFC 9110 12.5.3), though it names it: every answer comes
// uncompressed, the exposition whole (also while the counters are not yet compressed in
// the background, when the plain answer is made) and the status page and topology.
TEST_F(Endpoint, GzipRefusedWithQZeroIsNeverCompressed) {
  publisher_.publish(snapshot_with_counters());
  httplib::Client c("127.0.0.1", port_);
  const httplib::Headers refused{{"Accept-Encoding", "gzip;q=0, identity"}};
  auto r = c.Get("/metrics", refused);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_FALSE(r->has_header("Content-Encoding"));
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(r->body, render(*publisher_.current()));
  auto page = c.Get("/", refused);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_FALSE(page->has_header("Content-Encoding"));
  EXPECT_NE(page->body.find("id=\"sm-state\">MASTER<"), std::string::npos);
  // The same client naming gzip without q=0 gets it (the page compressed by cpp-httplib).
  auto gz = c.Get("/", httplib::Headers{{"Accept-Encoding", "gzip"}});
  ASSERT_TRUE(gz);
  EXPECT_EQ(gz->get_header_value("Content-Encoding"), "gzip");
  EXPECT_EQ(gz->body, page->body);
}

TEST_F(Endpoint, ServesTheStatusPage) {
  httplib::Client c("127.0.0.1", port_);
  auto before = c.Get("/");
  ASSERT_TRUE(before);
  EXPECT_EQ(before->status, 503);
  auto s = snapshot_with_counters();
  s->perf_counters = nullptr;
  publisher_.publish(s);
  auto r = c.Get("/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(r->get_header_value("Content-Security-Policy").find("default-src 'none'"),
            std::string::npos);
  EXPECT_NE(r->body.find("id=\"sm-state\">MASTER<"), std::string::npos);
  EXPECT_EQ(c.Get("/topology.svg")->status, 503);  // no fabric yet
}

TEST_F(Endpoint, RefusesWhatItDoesNotServe) {
  publisher_.publish(snapshot_with_counters());
  httplib::Client c("127.0.0.1", port_);
  auto unknown = c.Get("/admin");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  auto post = c.Post("/metrics", "sweep", "text/plain");
  ASSERT_TRUE(post);
  EXPECT_GE(post->status, 400);
  auto del = c.Delete("/metrics");
  ASSERT_TRUE(del);
  EXPECT_GE(del->status, 400);
  // A header past the bound: refused, not served.
  httplib::Headers big{{"X-Pad", std::string(16384, 'a')}};
  auto huge = c.Get("/metrics", big);
  if (huge) {
    EXPECT_GE(huge->status, 400);
  }
  // Garbage: an error answer or a closed connection, never metrics.
  const std::string g = raw(std::string("\x01\x02 GARBAGE\r\n\r\n", 14));
  EXPECT_EQ(g.find("ibsm_"), std::string::npos);
  if (!g.empty()) {
    EXPECT_NE(g.find(" 400 "), std::string::npos) << g;
  }
  const std::string lines_flood = raw("GET /metrics HTTP/1.1\r\n" + std::string(200000, 'x'));
  EXPECT_EQ(lines_flood.find("ibsm_"), std::string::npos);
  // Still serving.
  auto ok = c.Get("/metrics");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
}

}  // namespace
}  // namespace ibsm::metrics
