#include "agent/service_probe.hpp"

namespace ibsm::agent {

bool SystemctlProbe::active(const std::string& unit) const {
  CommandResult r = runner_.run({"systemctl", "is-active", "--quiet", unit});
  // is-active: 0 active, 3 inactive, 4 no such unit; -1/127: systemctl could not run,
  // 1 with "System has not been booted with systemd" or no bus: ask the fallback.
  if (r.status == 0) return true;
  if (r.status == 3 || r.status == 4) return false;
  return fallback_.active(unit);
}

bool RunDirProbe::active(const std::string& unit) const {
  // The link points at the invocation ID, not at a file: it dangles by design.
  if (fs_.link_target("/run/systemd/units/invocation:" + unit)) return true;
  if (unit == "NetworkManager.service") {
    auto pid = fs_.read("/run/NetworkManager/NetworkManager.pid");
    return pid && !trim(*pid).empty() && fs_.is_dir("/proc/" + trim(*pid));
  }
  return false;
}

}  // namespace ibsm::agent
