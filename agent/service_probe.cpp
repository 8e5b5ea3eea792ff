#include "agent/service_probe.hpp"
#include "agent/input_grammar.hpp"

#include <cstdlib>

namespace ibsm::agent {

bool SystemctlProbe::active(const std::string& unit) const {
  CommandResult r = runner_.run({"systemctl", "is-active", "--quiet", unit});
  // is-active: 0 active, 3 inactive, 4 no such unit; -1/127: systemctl could not run,
  // 1 with "System has not been booted with systemd" or no bus: ask the fallback.
  if (r.status == 0) return true;
  if (r.status == 3 || r.status == 4) return false;
  return fallback_.active(unit);
}

std::map<std::string, std::string> parse_systemctl_show(const std::string& output) {
  std::map<std::string, std::string> out;
  std::string::size_type at = 0;
  while (at < output.size()) {
    auto nl = output.find('\n', at);
    std::string line = output.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
    if (auto eq = line.find('='); eq != std::string::npos && eq > 0)
      out[line.substr(0, eq)] = line.substr(eq + 1);
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  return out;
}

std::optional<UnitMemlock> SystemctlProbe::memlock(const std::string& unit) const {
  CommandResult r = runner_.run({"systemctl", "show", "-p", "MainPID", "-p", "LimitMEMLOCK", unit});
  if (r.status != 0) return std::nullopt;
  auto props = parse_systemctl_show(r.output);
  if (!props.count("MainPID") || !props.count("LimitMEMLOCK")) return std::nullopt;
  UnitMemlock m;
  m.main_pid = static_cast<unsigned>(parse_sysfs_uint(props["MainPID"], 0xffffffffu).value_or(0));
  m.limit_memlock = props["LimitMEMLOCK"];
  return m;
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
