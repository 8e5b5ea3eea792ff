// The opensm.conf keys that set link parameters in the PortInfo the SM writes to
// physical ports (force_link_speed, force_link_speed_ext, force_link_width and the
// Trap 129/130 error thresholds), with OpenSM's treatment of reserved values.
#pragma once

#include <cstdint>

#include "common/log.hpp"
#include "conf/options.hpp"

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

}  // namespace ibsm::sm
