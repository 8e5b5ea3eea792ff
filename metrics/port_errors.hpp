// Which ports have errors, and how fast they rise: the PerfMgr's error totals of the
// latest counter snapshot against those of the one before (one PerfMgr sweep
// apart). The status page lists these ports and colours links by their level.
// XmitWait is congestion, not an error, and is left out of the sums.
#pragma once

#include <cstdint>
#include <ctime>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "mad/types.hpp"
#include "perfmgr/counter_snapshot.hpp"

namespace ibsm::metrics {

enum class ErrorLevel : std::uint8_t {
  kNone,    // no error counted
  kPast,    // errors counted before, none in the last PerfMgr interval
  kRising,  // rising, under kHighPerSecond (or the first sweep: rate unknown)
  kHigh,    // rising at kHighPerSecond or more
};
inline constexpr double kHighPerSecond = 1.0;
std::string_view error_level_class(ErrorLevel l);  // "ok", "past", "rising", "high"

struct PortErrorRow {
  const perfmgr::PortCounterRow* port = nullptr;  // into PortErrors::now
  std::uint64_t total = 0;                        // error counters summed (XmitWait excluded)
  std::uint64_t increase = 0;                     // since the previous counter snapshot
  double per_second = -1;  // increase over the readings' interval; -1: unknown
  ErrorLevel level = ErrorLevel::kNone;
};

struct PortErrors {
  perfmgr::CounterSnapshotPtr now;
  std::vector<PortErrorRow> rows;  // ports with errors, worst first
  ErrorLevel level(mad::Guid node, unsigned port) const;

  struct Key {
    mad::Guid guid;
    unsigned port;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const { return std::hash<mad::Guid>{}(k.guid) ^ k.port; }
  };
  std::unordered_map<Key, ErrorLevel, KeyHash> by_port;  // only ports with errors
};

// What the rates need of the counter snapshot before: the error sums of the ports
// that had errors, and when they were read (a few bytes per such port, rather than
// the whole snapshot kept alive).
struct ErrorTotals {
  struct Reading {
    std::uint64_t total = 0;
    std::time_t time = 0;
  };
  std::unordered_map<PortErrors::Key, Reading, PortErrors::KeyHash> ports;
  std::time_t time = 0;  // the latest reading of the snapshot (for ports without errors)
};
ErrorTotals error_totals(const perfmgr::CounterSnapshot& c);

// `before` may be null (the PerfMgr's first sweep: rates unknown).
PortErrors port_errors(perfmgr::CounterSnapshotPtr now, const ErrorTotals* before);

}  // namespace ibsm::metrics
