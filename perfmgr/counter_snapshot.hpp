// An immutable copy of the PerfMgr's counters, made by the SM's thread after each
// PerfMgr sweep and published with the OpsSnapshot, so that the /metrics endpoint
// reads counters without ever touching the CounterDb the SM's thread owns.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "perfmgr/counter_db.hpp"

namespace ibsm::perfmgr {

struct PortCounterRow {
  std::uint64_t guid = 0;
  std::string name;
  bool is_switch = false;
  unsigned port = 0;
  bool remote_valid = false;
  std::uint64_t remote_guid = 0;
  std::string remote_name;
  unsigned remote_port = 0;
  // PortInfo codes of the link (IBA 14.2.5.6); 0 = unknown.
  std::uint8_t link_width_active = 0;
  std::uint8_t link_speed_active = 0;
  std::uint8_t link_speed_ext_active = 0;
  ErrReading err;    // totals since the PerfMgr started (or clear_counters)
  DataReading data;  // totals, raw IBA units (data counters in 4-octet words)
};

struct CounterSnapshot {
  std::vector<PortCounterRow> ports;  // by node GUID, then port
  std::uint64_t sweeps = 0;
  double last_sweep_seconds = 0;
  std::uint64_t sent = 0, received = 0, timeouts = 0, retries = 0, errors = 0;
  std::uint64_t outstanding = 0;
};
using CounterSnapshotPtr = std::shared_ptr<const CounterSnapshot>;

// Gb/s per lane of the active speed (LinkSpeedExtActive wins when set); 0 when unknown.
// Decoded by mad/attr/port_speeds.hpp (lane_speed_of, lane_signalling_gbps).
double lane_gbps(std::uint8_t speed_active, std::uint8_t speed_ext_active);

}  // namespace ibsm::perfmgr
