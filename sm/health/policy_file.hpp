// The health policy file (hm_ports_health_policy_file), NVIDIA's SM's manual list:
//
//   # comment
//   0x0002c90300a1b2c3 12 UNHEALTHY     a port marked unhealthy (the manual condition)
//   0002c90300a1b2c4   1  HEALTHY       a port cleared, whatever condition it was in
//
// One port a line: a GUID (hex, 0x optional, at most 16 digits; a node GUID or the
// port's own GUID), a port number 0-254, HEALTHY or UNHEALTHY (any letter case). Blank
// lines and text from '#' on are skipped. Any other line, or one port named twice with
// both words, refuses the whole file with file:line (IBSM-2801); so does a GUID the
// fabric does not have or a port beyond the node's NumPorts (IBSM-2802, check_ports).
// A refused file changes nothing: reload_policy keeps the last good policy.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.hpp"
#include "sm/health/health_types.hpp"

namespace ibsm::sm::health {

enum class PortHealth : std::uint8_t { kHealthy, kUnhealthy };

struct PolicyEntry {
  Guid guid = 0;
  PortNum port = 0;
  PortHealth health = PortHealth::kUnhealthy;
  unsigned line = 0;
};

class HealthPolicy {
 public:
  HealthPolicy() = default;

  // `file` names the source in errors ("file:line: ...").
  static Result<HealthPolicy> parse(std::string_view text, std::string_view file);
  // Reads and parses `path`; an unreadable file is IBSM-2803.
  static Result<HealthPolicy> load(const std::string& path);

  // Every line against the fabric: `num_ports(guid)` gives the NumPorts of the node
  // with that node or port GUID, or nothing for a GUID no node has.
  Status check_ports(const std::function<std::optional<unsigned>(Guid)>& num_ports) const;

  // What the file says of the port (its node GUID or its own GUID, and its number).
  std::optional<PortHealth> find(Guid node_guid, Guid port_guid, PortNum port) const;

  const std::vector<PolicyEntry>& entries() const { return entries_; }
  const std::string& source() const { return source_; }

 private:
  std::vector<PolicyEntry> entries_;
  std::map<std::pair<Guid, PortNum>, std::size_t> index_;  // first entry of each port
  std::string source_;
};

struct PolicyReload {
  HealthPolicy policy;         // the new one, or `current` when the file was refused
  std::optional<Error> error;  // why it was refused
};

// Re-reads `path` (SIGHUP): parsed and checked against the fabric, or refused with
// `current` kept. An empty path is the empty policy.
PolicyReload reload_policy(const std::string& path,
                           const std::function<std::optional<unsigned>(Guid)>& num_ports,
                           const HealthPolicy& current);

}  // namespace ibsm::sm::health
