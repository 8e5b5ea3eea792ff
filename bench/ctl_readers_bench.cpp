// Heavy sweeps of the SM with and without 50 control-socket readers (issue 26): 25
// `events --follow` followers and 25 clients asking `status` in a loop over the real
// Unix socket, against the SM on the FakeFabric in this process. Prints, for each, the
// median sweep's CPU time (the SM's thread and the workers it computes routes on: the
// process's CPU clock less the reader threads' and the control server threads', so the
// work the SM does, which readers could only add to through locks, copies or
// wake-ups; the server's threads are its socket thread and its answer workers), the SM
// thread's alone, and its wall time (which on a shared machine also
// counts the CPU the reader threads take from the sweep), their ratios
// (docs/benchmarks.md; the issue asks for <= 1.10), and the CPU the readers and the
// control server took meanwhile.
//
// Usage: ctl_readers_bench [net file] [sweeps per side]. The net file is looked up as
// given, in $IBSM_TOPOLOGIES, then in ../shared/topologies/ (default fattree-648.net).
#include <pthread.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "ctl/server.hpp"
#include "sm/subnet_manager.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/log_capture.hpp"
#include "tests/support/net_file.hpp"
#include "tests/support/temp_dir.hpp"

#include "bench/bench_kit.hpp"

namespace {

using ibsm::bench::find_net;

using namespace ibsm;

int connect_to(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::snprintf(a.sun_path, sizeof(a.sun_path), "%s", path.c_str());
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    ::close(fd);
    return -1;
  }
  timeval tv{0, 100000};  // a follower notices within 0.1 s that its phase ended
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  return fd;
}

double cpu_seconds(clockid_t clock) {
  timespec ts{};
  ::clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
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

  ctl::ServerSettings st;
  st.socket_path = dir.path() + "/ctl.sock";
  ctl::ControlServer server(manager.ops(), log, st);
  server.start();
  std::mutex clocks_mu;
  std::vector<clockid_t> reader_clocks;  // each reader thread's CPU clock
  auto register_reader = [&] {
    clockid_t c{};
    pthread_getcpuclockid(pthread_self(), &c);
    std::lock_guard lock(clocks_mu);
    reader_clocks.push_back(c);
  };
  auto readers_cpu = [&] {
    std::lock_guard lock(clocks_mu);
    double sum = 0;
    for (clockid_t c : reader_clocks)
      sum += cpu_seconds(c);
    return sum + server.cpu_seconds();  // its socket thread and its workers
  };

  struct Measured {
    double wall = 0;
    double sweep_cpu = 0;    // the process less readers and control server: the SM's work
    double thread_cpu = 0;   // the SM's thread alone (routing runs on workers beside it)
    double readers_cpu = 0;  // reader threads and the control server thread
  };
  auto heavy = [&] {
    manager.request_heavy_sweep(sm::HeavyReason::kForced);
    const double thread0 = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
    const double proc0 = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
    const double readers0 = readers_cpu();
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = manager.sweep(stop);
    Measured m;
    m.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    m.thread_cpu = cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - thread0;
    m.readers_cpu = readers_cpu() - readers0;
    m.sweep_cpu = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID) - proc0 - m.readers_cpu;
    if (!r.subnet_up) std::fprintf(stderr, "sweep not up\n");
    return m;
  };
  heavy();  // first bring-up, not measured

  std::atomic<bool> readers_on{false}, quit{false};
  std::atomic<std::uint64_t> statuses{0}, event_bytes{0};
  std::vector<std::thread> threads;
  // Readers off: disconnected and blocked (not polling), so that the sweeps without
  // readers share the process with nothing but the control server's idle poll.
  auto wait_for_on = [&] { readers_on.wait(false); };
  for (int i = 0; i < 25; ++i) {
    threads.emplace_back([&] {  // follower
      register_reader();
      int fd = -1;
      char buf[65536];
      while (!quit) {
        if (!readers_on) {
          if (fd >= 0) ::close(fd), fd = -1;
          wait_for_on();
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
      register_reader();
      char buf[65536];
      while (!quit) {
        if (!readers_on) {
          wait_for_on();
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
  // Alternating, so that a change in the machine's load hits both sides alike.
  std::vector<Measured> without, with;
  for (int i = 0; i < per_side; ++i) {
    readers_on = false;
    // Every reader gone (followers unsubscribed) before the sweep without readers.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (server.connections() > 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    without.push_back(heavy());
    readers_on = true;
    readers_on.notify_all();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // all 50 connected
    with.push_back(heavy());
  }
  quit = true;
  readers_on = true;
  readers_on.notify_all();
  for (auto& t : threads)
    t.join();
  server.stop();
  auto med = [](const std::vector<Measured>& v, double Measured::*field) {
    std::vector<double> x;
    for (const Measured& m : v)
      x.push_back(m.*field);
    return median(x);
  };
  auto line = [&](const char* what, double Measured::*field) {
    const double a = med(without, field), b = med(with, field);
    std::printf("  %-34s %.4f s without readers, %.4f s with 50; ratio %.3f\n", what, a, b,
                a > 0 ? b / a : 0.0);
  };
  std::printf("fabric %s, %d sweeps per side (%zu status answers, %.1f MB of events):\n",
              path.filename().c_str(), per_side, static_cast<std::size_t>(statuses.load()),
              static_cast<double>(event_bytes.load()) / 1e6);
  line("sweep CPU (SM thread + workers):", &Measured::sweep_cpu);
  line("SM thread CPU:", &Measured::thread_cpu);
  line("wall time:", &Measured::wall);
  std::printf("  readers + control server CPU during a sweep: %.4f s without, %.4f s with\n",
              med(without, &Measured::readers_cpu), med(with, &Measured::readers_cpu));
  return 0;
}
