// Heavy sweeps of the SM with and without 50 control-socket readers (issue 26): 25
// `events --follow` followers and 25 clients asking `status` in a loop over the real
// Unix socket, against the SM on the FakeFabric in this process. Prints the median
// sweep time of each and their ratio (docs/benchmarks.md; the issue asks for <= 1.10).
//
// Usage: ctl_readers_bench [net file] [sweeps per side]. The net file is looked up as
// given, in $IBSM_TOPOLOGIES, then in ../shared/topologies/ (default fattree-648.net).
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "ctl/server.hpp"
#include "sm/subnet_manager.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/log_capture.hpp"
#include "tests/support/net_file.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

using namespace ibsm;

std::filesystem::path find_net(const std::string& name) {
  if (std::filesystem::exists(name)) return name;
  if (const char* dir = std::getenv("IBSM_TOPOLOGIES")) {
    const auto p = std::filesystem::path(dir) / name;
    if (std::filesystem::exists(p)) return p;
  }
  const auto p = std::filesystem::path(IBSM_SOURCE_DIR) / ".." / "shared" / "topologies" / name;
  if (std::filesystem::exists(p)) return p;
  return {};
}

int connect_to(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::snprintf(a.sun_path, sizeof(a.sun_path), "%s", path.c_str());
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    ::close(fd);
    return -1;
  }
  timeval tv{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  return fd;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const std::string name = argc > 1 ? argv[1] : "fattree-648.net";
  const int per_side = argc > 2 ? std::atoi(argv[2]) : 7;
  const auto path = find_net(name);
  if (path.empty()) {
    std::printf("ctl_readers_bench: %s not found (set IBSM_TOPOLOGIES); skipped\n", name.c_str());
    return 0;
  }
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  auto desc = testsupport::parse_net(text.str(), path.string());
  if (!desc.ok()) {
    std::fprintf(stderr, "ctl_readers_bench: %s\n", desc.error().message.c_str());
    return 1;
  }
  FakeClock clock;
  testsupport::TempDir dir;
  std::ostringstream sink;
  Logger log = testsupport::capture_log(sink, "bench", spdlog::level::warn);
  fake::FakeFabric fabric(*desc, clock);
  conf::Options options;
  options.cache_dir = dir.path() + "/cache";
  sm::SubnetManager manager(fabric, clock, log, options);
  std::atomic<bool> stop{false};
  auto heavy = [&] {
    manager.request_heavy_sweep(sm::HeavyReason::kForced);
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = manager.sweep(stop);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!r.subnet_up) std::fprintf(stderr, "sweep not up\n");
    return s;
  };
  heavy();  // first bring-up, not measured

  ctl::ServerSettings st;
  st.socket_path = dir.path() + "/ctl.sock";
  ctl::ControlServer server(manager.ops(), log, st);
  server.start();

  std::atomic<bool> readers_on{false}, quit{false};
  std::atomic<std::uint64_t> statuses{0}, event_bytes{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 25; ++i) {
    threads.emplace_back([&] {  // follower
      int fd = -1;
      char buf[65536];
      while (!quit) {
        if (!readers_on) {
          if (fd >= 0) ::close(fd), fd = -1;
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
          continue;
        }
        if (fd < 0) {
          fd = connect_to(st.socket_path);
          const char req[] = "--json events --follow\n";
          if (fd >= 0) (void)!::send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL);
        }
        const ssize_t n = fd >= 0 ? ::read(fd, buf, sizeof(buf)) : 0;
        if (n > 0) event_bytes += static_cast<std::uint64_t>(n);
      }
      if (fd >= 0) ::close(fd);
    });
    threads.emplace_back([&] {  // status reader
      char buf[65536];
      while (!quit) {
        if (!readers_on) {
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
          continue;
        }
        const int fd = connect_to(st.socket_path);
        if (fd < 0) continue;
        const char req[] = "--json status\n";
        (void)!::send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL);
        std::string got;
        while (got.find("\n.ok\n") == std::string::npos) {
          const ssize_t n = ::read(fd, buf, sizeof(buf));
          if (n <= 0) break;
          got.append(buf, static_cast<std::size_t>(n));
        }
        ::close(fd);
        ++statuses;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));  // an operator's pace, x25
      }
    });
  }
  std::vector<double> without, with;
  for (int i = 0; i < per_side; ++i) {
    readers_on = false;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    without.push_back(heavy());
    readers_on = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    with.push_back(heavy());
  }
  quit = true;
  for (auto& t : threads)
    t.join();
  server.stop();
  const double a = median(without), b = median(with);
  std::printf(
      "fabric %s: heavy sweep median %.3f s without readers, %.3f s with 50 readers "
      "(%zu status answers, %.1f MB of events); ratio %.3f\n",
      path.filename().c_str(), a, b, static_cast<std::size_t>(statuses.load()),
      static_cast<double>(event_bytes.load()) / 1e6, a > 0 ? b / a : 0.0);
  return 0;
}
