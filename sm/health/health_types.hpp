// The vocabulary of fabric health (issue 35): which port, which condition, which
// action. NVIDIA's SM names the conditions and actions; the words here are those of
// its hm_{ca,sw}_<condition>_action keys, so the dump, ctl, events and metrics
// speak the same words as opensm.conf.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <string_view>

#include "mad/types.hpp"

namespace ibsm::sm::health {

using mad::Guid;
using mad::PortNum;

// One physical port: its node's GUID and its number (a switch's ports share one
// GUID, so the node GUID and the number name a port everywhere).
struct PortKey {
  Guid node_guid = 0;
  PortNum port = 0;
  auto operator<=>(const PortKey&) const = default;
};

// The action table has a row per kind: CAs and routers (NVIDIA's "CA/RTR") and
// switches.
enum class NodeKind : std::uint8_t { kCa, kSwitch };
NodeKind node_kind(mad::NodeType t);

enum class Condition : std::uint8_t {
  kReboot,
  kUnresponsive,
  kNoisy,
  kSetErr,
  kFlapping,
  kIllegal,
  kManual,
  kErrorRate,  // ibsm's: the PerfMgr error counters (hm_*_per_hour)
};
inline constexpr std::size_t kConditionCount = 8;
inline constexpr std::array kAllConditions = {
    Condition::kReboot,   Condition::kUnresponsive, Condition::kNoisy,  Condition::kSetErr,
    Condition::kFlapping, Condition::kIllegal,      Condition::kManual, Condition::kErrorRate,
};

// "reboot", "unresponsive", "noisy", "seterr", "flapping", "illegal", "manual",
// "error_rate": the word in the action keys' names.
std::string_view condition_name(Condition c);

enum class Action : std::uint8_t { kIgnore, kReport, kIsolate, kNoDiscover, kDisable };

// "ignore", "report", "isolate", "no_discover", "disable": the keys' values.
std::string_view action_name(Action a);
std::optional<Action> parse_action(std::string_view word);

// Why a port got a milder action than its key asks for.
enum class Downgrade : std::uint8_t {
  kNone,
  kProtected,     // the SM's own port or a port on its path: never acted on
  kSoleHostLink,  // isolate would cut a host's only link
  kIsolationCap,  // hm_max_isolated_ports ports are isolated already
};
std::string_view downgrade_name(Downgrade d);  // "", "sm_path", "host_only_link", "cap"

}  // namespace ibsm::sm::health
