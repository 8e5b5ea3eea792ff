// One thing the SM did, as the event stream carries it: a wall-clock time, a type
// with a stable numeric ID (docs/ctl.md lists them; an ID never changes meaning), a
// sequence number and named fields. Events are made on the SM's thread and shared,
// immutable, by every reader; encoding to JSON happens in the reader.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ibsm::ops {

// The stable IDs: hundreds group a topic (1xx SM, 2xx sweeps, 3xx ports and links,
// 4xx traps, 5xx LIDs, 6xx routing, 7xx partitions, 8xx multicast, 9xx the
// operator and the stream itself). New types get new numbers; none is reused.
enum class EventType : std::uint16_t {
  kSmState = 101,        // SM state changed (from, to)
  kElection = 102,       // an election outcome: another SM seen, handover asked or done
  kSweepStarted = 201,   // kind, reason
  kSweepFinished = 202,  // kind, reason, seconds, MADs, subnet_up, problems
  kPortState = 301,      // a port's state changed between two sweeps
  kLinkUp = 302,
  kLinkDown = 303,
  // The cabling check's deviations from topo_config_file changed after a heavy sweep
  // (or a reload): deviations, degraded, kinds, file.
  kTopologyDeviation = 310,
  // Fabric health (sm/health/): a port met a health condition and its action was taken,
  // or it was cleared; guid, port, name, condition, action, remote_guid, remote_port,
  // remote_name.
  kPortUnhealthy = 311,
  kPortHealthy = 312,
  kTrap = 401,          // a trap received: number, source LID, issuer GID
  kSecurityTrap = 402,  // traps 256-259 (M_Key, P_Key, Q_Key, B_Key violations)
  kLidAssigned = 501,   // a port got its first LID
  kLidChanged = 502,    // a port's LID changed
  kRouting = 601,       // engine, fallback, unreachable pairs, EFI
  kPartitionsReloaded = 701,
  kMcastGroupCreated = 801,
  kMcastGroupDeleted = 802,
  kConfigReloaded = 901,
  kControl = 902,        // a changing command from the control socket (uid, command)
  kEventsDropped = 903,  // synthetic, per reader: events this reader lost
};

std::string_view event_type_name(EventType t);  // "sweep_finished"
// Every type, in ID order (docs and tests walk it).
const std::vector<EventType>& all_event_types();

using FieldValue = std::variant<bool, std::int64_t, std::uint64_t, double, std::string>;
struct EventField {
  std::string key;
  FieldValue value;
};

struct Event {
  std::uint64_t seq = 0;  // per SM process, from 1, without gaps in what the SM emitted
  std::chrono::system_clock::time_point time;
  EventType type = EventType::kSmState;
  std::vector<EventField> fields;

  // The value of `key`, if the event has it (tests and text output).
  const FieldValue* field(std::string_view key) const;
};
using EventPtr = std::shared_ptr<const Event>;

// {"time":"2026-11-27T16:40:01.123Z","seq":12,"id":202,"type":"sweep_finished",
//  "fields":{...}}: one line, no newline. Strings are escaped as RFC 8259 asks;
// non-finite doubles are written as null.
std::string encode_json(const Event& e);
// "2026-11-27T16:40:01.123Z sweep_finished(202) kind=heavy seconds=0.41 ..."
std::string encode_text(const Event& e);

// Helpers for the JSON the ctl and events write (one idea: RFC 8259 strings).
void append_json_string(std::string& out, std::string_view s);
std::string format_utc(std::chrono::system_clock::time_point t);  // ISO 8601, ms, "Z"

}  // namespace ibsm::ops
