// memlock in force (deep verify): limits files are only what the next login or service
// start reads. verify compares what processes run with now:
//   - the group (limits.d, read by pam_limits at login): pam_limits must be in the PAM
//     session stack, the group must exist, and every process of a member of the group
//     must run with at least the limit (a session started before the file keeps the old one);
//   - each service of memlock.services: systemd must have loaded the drop-in's
//     LimitMEMLOCK (daemon-reload) and its main process, if any, must run with it
//     (/proc/<MainPID>/limits), else it needs a restart.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "agent/fs.hpp"
#include "agent/node_config.hpp"
#include "agent/observed.hpp"
#include "agent/verify.hpp"

namespace ibsm::agent {

// "Max locked memory" of /proc/<pid>/limits: {soft, hard}, each "unlimited" or bytes.
std::optional<std::pair<std::string, std::string>> parse_proc_memlock(const std::string& limits);

// What LimitMEMLOCK must read for the node file's hard limit (KiB or "unlimited"):
// bytes, or "infinity".
std::string systemd_memlock(const std::string& kib_or_unlimited);

Verdict verify_memlock_group(const std::string& resource, const Memlock& want, const Fs& fs);
Verdict verify_memlock_service(const std::string& resource, const std::string& unit,
                               const Memlock& want, const Observed& observed, const Fs& fs);

}  // namespace ibsm::agent
