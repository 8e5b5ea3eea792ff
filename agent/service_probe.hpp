// Which services run on the host: the seam backend detection asks. A backend is
// chosen by the manager whose daemon is active, never by which directories exist
// (/run/systemd/netif exists on a stock Debian 12 even with networkd disabled).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "agent/fs.hpp"
#include "agent/kernel.hpp"
#include "agent/observed.hpp"

namespace ibsm::agent {

class ServiceProbe {
 public:
  virtual ~ServiceProbe() = default;
  // Whether the systemd unit (e.g. "NetworkManager.service") is active now.
  virtual bool active(const std::string& unit) const = 0;
  // MainPID and LimitMEMLOCK of a service; nothing where systemd cannot be asked.
  virtual std::optional<UnitMemlock> memlock(const std::string& /*unit*/) const {
    return std::nullopt;
  }
};

// `systemctl show` output ("Key=value" lines) as a map.
std::map<std::string, std::string> parse_systemctl_show(const std::string& output);

// `systemctl is-active --quiet UNIT`. Where systemctl cannot run (no systemd as
// PID 1), asks `fallback` instead.
class SystemctlProbe final : public ServiceProbe {
 public:
  SystemctlProbe(const CommandRunner& runner, const ServiceProbe& fallback)
      : runner_(runner), fallback_(fallback) {}
  bool active(const std::string& unit) const override;
  // `systemctl show -p MainPID -p LimitMEMLOCK UNIT`.
  std::optional<UnitMemlock> memlock(const std::string& unit) const override;

 private:
  const CommandRunner& runner_;
  const ServiceProbe& fallback_;
};

// What the service managers leave under /run while they run, read through Fs, so
// that a --root tree can say which services run: systemd's
// /run/systemd/units/invocation:UNIT link (present while the unit has an
// invocation, i.e. is started), else the daemon's own pid file with a live process
// (/proc/PID exists): /run/NetworkManager/NetworkManager.pid.
class RunDirProbe final : public ServiceProbe {
 public:
  explicit RunDirProbe(const Fs& fs) : fs_(fs) {}
  bool active(const std::string& unit) const override;

 private:
  const Fs& fs_;
};

}  // namespace ibsm::agent
