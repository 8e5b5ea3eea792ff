// The metrics endpoint on a 5832-host fabric (issue 30: a scrape answers in under 1 s
// and the endpoint stays under 100 MB): the OpsSnapshot of kary_ntree(18, 3) (972
// switches, 5832 hosts, every port with PerfMgr counters; tests/fake) is published
// to a MetricsEndpoint on a loopback port and scraped over HTTP by a client that
// counts the bytes and keeps none of them, as Prometheus does (Accept-Encoding:
// gzip) and as curl does (no encoding). Also the status page (/) and the
// exposition rendered in process.
//
// Peak RSS is the process's high-water mark (VmHWM), reset after the snapshot is
// built (/proc/self/clear_refs), so it is the endpoint's own use on top of the
// snapshot the SM holds anyway.
//
// Usage: metrics_scrape_bench [k n] [scrapes] (default 18 3, 5 scrapes of each kind).
#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "metrics/endpoint.hpp"
#include "metrics/exposition.hpp"
#include "tests/fake/fake_ops_snapshot.hpp"
#include "tests/support/builders.hpp"
#include "tests/support/log_capture.hpp"

namespace {

using namespace ibsm;
using WallClock = std::chrono::steady_clock;

double seconds_since(WallClock::time_point t0) {
  return std::chrono::duration<double>(WallClock::now() - t0).count();
}

// VmRSS and VmHWM of this process in MB.
double proc_status_mb(const char* key) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key, 0) == 0)
      return std::strtod(line.c_str() + std::strlen(key), nullptr) / 1024;
  return 0;
}

void reset_peak() {
  std::ofstream("/proc/self/clear_refs") << "5";
}

struct Scrape {
  double seconds = 0;
  std::size_t bytes = 0;
  int status = 0;
  std::string encoding;
  bool vary = false;  // the joined answer of the counters compressed in the background
};

Scrape scrape(std::uint16_t port, const std::string& path, bool gzip) {
  httplib::Client c("127.0.0.1", port);
  c.set_read_timeout(60, 0);
  // The bytes on the wire: what the server sends, not what the client would inflate.
  c.set_decompress(false);
  httplib::Headers h;
  h.emplace("Accept-Encoding", gzip ? "gzip" : "identity");
  Scrape s;
  const auto t0 = WallClock::now();
  auto r = c.Get(path, h, [&](const char*, std::size_t n) {
    s.bytes += n;
    return true;
  });
  s.seconds = seconds_since(t0);
  if (r) {
    s.status = r->status;
    s.encoding = r->get_header_value("Content-Encoding");
    s.vary = r->has_header("Vary");
  }
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const unsigned k = argc > 2 ? static_cast<unsigned>(std::atoi(argv[1])) : 18;
  const unsigned n = argc > 2 ? static_cast<unsigned>(std::atoi(argv[2])) : 3;
  const int scrapes = argc > 3 ? std::atoi(argv[3]) : 5;
  const auto fabric = testsupport::kary_ntree(k, n);
  auto ops = fake::ops_snapshot_of(fabric);
  // Two PerfMgr sweeps, so that rates exist (some ports with errors).
  ops->perf_counters = fake::counters_later(*ops->perf_counters, 60, 3, 997);
  std::printf("fabric kary_ntree(%u, %u): %zu nodes, %zu counter rows\n", k, n,
              ops->fabric->nodes.size(), ops->perf_counters->ports.size());

  std::printf("snapshot built: RSS %.1f MB\n", proc_status_mb("VmRSS:"));
  reset_peak();
  const double base = proc_status_mb("VmRSS:");
  auto t0 = WallClock::now();
  const std::size_t rendered = metrics::render(*ops).size();
  std::printf("render() in process: %.3f s, %zu bytes, peak RSS +%.1f MB\n", seconds_since(t0),
              rendered, proc_status_mb("VmHWM:") - base);

  ops::OpsPublisher publisher;
  std::ostringstream sink;
  metrics::MetricsEndpoint endpoint(publisher,
                                    testsupport::capture_log(sink, "metrics", spdlog::level::warn));
  if (!endpoint.start({"127.0.0.1", 0}).ok()) {
    std::fprintf(stderr, "cannot start the endpoint\n");
    return 1;
  }
  reset_peak();
  double before = proc_status_mb("VmRSS:");
  t0 = WallClock::now();
  publisher.publish(ops);
  // The background thread compresses the counters once: until then a gzip scrape
  // is compressed whole per request, and its answer has no Vary.
  while (!scrape(endpoint.port(), "/metrics", true).vary && seconds_since(t0) < 60)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::printf("counters compressed in the background after %.3f s, peak RSS +%.1f MB\n",
              seconds_since(t0), proc_status_mb("VmHWM:") - before);
  scrape(endpoint.port(), "/", false);
  reset_peak();
  before = proc_status_mb("VmRSS:");
  for (const auto& [path, gzip] : {std::pair{"/metrics", true}, std::pair{"/metrics", false},
                                   std::pair{"/", false}, std::pair{"/", true}}) {
    std::vector<double> times;
    Scrape last;
    for (int i = 0; i < scrapes; ++i) {
      last = scrape(endpoint.port(), path, gzip);
      times.push_back(last.seconds);
    }
    std::printf("GET %-8s %-13s status %d, %9zu bytes%s, median %.3f s (min %.3f, max %.3f)\n",
                path, gzip ? "(gzip asked)" : "(plain)", last.status, last.bytes,
                last.encoding.empty() ? "" : (" " + last.encoding).c_str(), median(times),
                *std::min_element(times.begin(), times.end()),
                *std::max_element(times.begin(), times.end()));
  }
  std::printf("endpoint peak RSS over the scrapes: +%.1f MB (process peak %.1f MB)\n",
              proc_status_mb("VmHWM:") - before, proc_status_mb("VmHWM:"));
  endpoint.stop();
  return 0;
}
