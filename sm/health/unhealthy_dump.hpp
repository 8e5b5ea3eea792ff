// The text of opensm-unhealthy-ports.dump (in dump_files_dir), pure; the SM writes it
// with common/atomic_file after every change. One port a line, in port order:
//
//   # ibsm unhealthy ports: GUID PORT "NODE NAME" CONDITION ACTION SINCE
//   0x0002c90300a1b2c3 12 "leaf-01" flapping isolate 2026-12-07T21:30:05Z
//
// GUID: the node's, 0x and 16 hex digits; the name quoted, with " and \ escaped by a
// backslash; CONDITION and ACTION the words of the hm_* keys (ACTION is what was done:
// report where a rule reduced the key's action); SINCE in UTC, to the second.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "common/clock.hpp"
#include "sm/health/health_judge.hpp"

namespace ibsm::sm::health {

// One moment on both clocks, to show a steady-clock time as wall time.
struct WallAnchor {
  Clock::TimePoint steady{};
  std::chrono::system_clock::time_point wall{};
};

std::string format_unhealthy_dump(const std::vector<Decision>& ports, const WallAnchor& anchor);

// "2026-12-07T21:30:05Z": `t` on the wall clock, by `anchor`.
std::string wall_time_text(Clock::TimePoint t, const WallAnchor& anchor);

}  // namespace ibsm::sm::health
