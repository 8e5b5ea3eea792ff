// Per-module logging: each of ibsm's subsystems logs through its own logger, whose
// level is the global log_flags OR that module's own flags (OpenSM's per-module log
// table, osm_log_is_active_v2: a module can only log more than the rest, never less).
// The module loggers share the root logger's file and syslog sinks, so their lines
// land in the one log file in order.
//
// OpenSM names its modules by source file ("osm_sa.c"); per_module_logging_file
// lines use those names. Each maps onto the ibsm subsystem doing that work
// (log_modules(), documented in docs/configuration.md); ibsm's own names work too.
//
// Runtime API (SIGHUP, the ctl `permodlog` command): module_log_flags,
// set_module_log_flags, reset_module_log_flags, all taking the root logger made by
// make_logger(). For other loggers (tests' capture loggers, null_logger) every
// module logs through the root logger itself and the flags change nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "common/log.hpp"

namespace ibsm {

enum class LogModule : std::uint8_t {
  kMain,        // the root logger: start-up, configuration, signals, dumps, the sweep loop
  kMad,         // MAD transport and the SMP client (sends, retries, timeouts)
  kDiscovery,   // heavy and light sweeps: NodeInfo, PortInfo, SwitchInfo, NodeDescription
  kElection,    // SM state machine, SMInfo, handover, the other SMs
  kLid,         // LID assignment, guid2lid
  kLink,        // PortInfo programming: MTU, VLs, speeds, widths, FDR10, port states
  kRouting,     // unicast routing engines, LFTs, the route report
  kMulticast,   // multicast groups, MFTs
  kPartitions,  // partitions.conf, P_Key tables
  kQos,         // QoS: SL2VL and VLArbitration tables
  kSa,          // the Subnet Administrator: queries, InformInfo, ServiceRecords, alias GUIDs
  kTraps,       // traps received, trap suppression, babbling ports
  kMkey,        // M_Key management
  kPerfmgr,     // performance manager
  kCongestion,  // congestion control
};
inline constexpr std::size_t kLogModuleCount = 15;

struct LogModuleInfo {
  LogModule id;
  std::string_view name;                             // ibsm's name ("sa")
  std::string_view what;                             // one line for the docs and `permodlog`
  std::span<const std::string_view> opensm_modules;  // OpenSM's source files mapped onto it
};

// All modules, in enum order.
std::span<const LogModuleInfo> log_modules();
const LogModuleInfo& log_module_info(LogModule m);
// An ibsm module name or one of OpenSM's module (source file) names.
std::optional<LogModule> find_log_module(std::string_view name);

// The logger of module `m`: made on first use from `root` (a make_logger() logger) and
// the same object on every later call; for kMain the root logger itself, whose level
// then follows log_flags OR the main module's flags. Any other logger is returned
// unchanged.
Logger module_logger(const Logger& root, LogModule m);

// The flags module `m` logs with on top of log_flags (0: none, the global level only).
unsigned module_log_flags(const Logger& root, LogModule m);
// Sets them; takes effect on the next line. False if `root` has no module loggers.
bool set_module_log_flags(const Logger& root, LogModule m, unsigned flags);
// All modules back to the global level only (OpenSM does this before reading the file).
void reset_module_log_flags(const Logger& root);

}  // namespace ibsm
