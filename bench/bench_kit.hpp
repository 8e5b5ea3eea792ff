// What the C++ benchmarks share: finding a net file of ../shared/topologies and timing a
// piece of work over a few runs (best and median). Header-only; each benchmark is one
// program that includes it.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#ifndef IBSM_SOURCE_DIR
#error "bench programs are built with -DIBSM_SOURCE_DIR (bench/meson.build)"
#endif

namespace ibsm::bench {

// A net file looked up as given, in $IBSM_TOPOLOGIES, then in ../shared/topologies/ beside
// the source tree; empty when none exists.
inline std::filesystem::path find_net(const std::string& name) {
  if (std::filesystem::exists(name)) return name;
  if (const char* dir = std::getenv("IBSM_TOPOLOGIES")) {
    const auto p = std::filesystem::path(dir) / name;
    if (std::filesystem::exists(p)) return p;
  }
  const auto p = std::filesystem::path(IBSM_SOURCE_DIR) / ".." / "shared" / "topologies" / name;
  if (std::filesystem::exists(p)) return p;
  return {};
}

struct Timing {
  double best = 0, median = 0;  // milliseconds
};

// `f` run `runs` times (at least once).
inline Timing time_it(int runs, const std::function<void()>& f) {
  std::vector<double> ms;
  for (int i = 0; i < std::max(1, runs); ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return {ms.front(), ms[ms.size() / 2]};
}

inline void print(const char* what, Timing t, std::size_t count) {
  std::printf("%-44s best %8.2f ms  median %8.2f ms  (%zu)\n", what, t.best, t.median, count);
}

}  // namespace ibsm::bench
