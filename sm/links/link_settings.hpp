// The opensm.conf keys that set link parameters in the PortInfo the SM writes to
// physical ports (force_link_speed, force_link_speed_ext, force_link_width and the
// Trap 129/130 error thresholds), with OpenSM's treatment of reserved values.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>

#include "common/log.hpp"
#include "conf/options.hpp"
#include "mad/attr/port_info.hpp"
#include "mad/types.hpp"

namespace ibsm::sm {

struct LinkSettings {
  std::uint8_t force_link_speed = 15;      // LinkSpeedEnabled; 0 = leave, 15 = as supported
  std::uint8_t force_link_speed_ext = 31;  // LinkSpeedExtEnabled; 0 leave, 30 none, 31 supported
  std::uint8_t force_link_width = 255;     // LinkWidthEnabled; 0 = leave, 255 = as supported
  std::uint8_t local_phy_errors_threshold = 8;  // PortInfo.LocalPhyErrors (Trap 129)
  std::uint8_t overrun_errors_threshold = 8;    // PortInfo.OverrunErrors (Trap 130)
};

// The settings from the options. A reserved force_link_* code runs as the key's
// default, as OpenSM does; each such replacement is logged when `log` is given.
LinkSettings link_settings(const conf::Options& o, const Logger* log = nullptr);

// PortInfo fields a port was sent and did not keep. Real ports keep them; ibsim keeps
// neither the error thresholds, VLHighLimit nor the "as supported" codes (it answers
// with the old values), nor SubnetTimeout and M_KeyLeasePeriod (every port, switch port
// 0 included), and OpenSM then re-sends them to every port on every heavy sweep. The SM
// remembers such ports and stops sending a Set for what they ignore alone (a Set sent
// for another reason still carries the wanted values). Named values (force_link_width
// 1, say) are always sent again: the port may take them later.
struct UntakenPortFields {
  bool thresholds = false;              // LocalPhyErrors / OverrunErrors
  bool width_as_supported = false;      // LinkWidthEnabled 255
  bool speed_as_supported = false;      // LinkSpeedEnabled 15
  bool speed_ext_as_supported = false;  // LinkSpeedExtEnabled 31
  bool vl_high_limit = false;           // VLHighLimit (QoS)
  bool subnet_timeout = false;          // SubnetTimeout (end ports, switch port 0)
  bool lease_period = false;            // M_KeyLeasePeriod (end ports, switch port 0)
  bool any() const {
    return thresholds || width_as_supported || speed_as_supported || speed_ext_as_supported ||
           vl_high_limit || subnet_timeout || lease_period;
  }
  bool operator==(const UntakenPortFields&) const = default;
};

// What the answer to a PortInfo Set shows the port ignored of what `sent` asked.
UntakenPortFields untaken_port_fields(const mad::PortInfo& sent, const mad::PortInfo& answer);

// Per port (node GUID, port number): what it ignored so far.
class UntakenPorts {
 public:
  const UntakenPortFields* find(mad::Guid node, mad::PortNum port) const;
  // Adds what this answer shows; true when the port ignored something new.
  bool note(mad::Guid node, mad::PortNum port, const UntakenPortFields& fields);
  std::size_t size() const { return ports_.size(); }

 private:
  struct Key {
    mad::Guid node = 0;
    mad::PortNum port = 0;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      return std::hash<std::uint64_t>{}(k.node * 0x9E3779B97F4A7C15ull ^ k.port);
    }
  };
  std::unordered_map<Key, UntakenPortFields, KeyHash> ports_;
};

}  // namespace ibsm::sm
