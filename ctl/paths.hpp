// Where an ibsm instance's control socket lives: /run/ibsm/<instance>.sock, the
// directory the systemd units create (RuntimeDirectory=ibsm). The instance is the
// systemd instance name (a port GUID "0x0002c903000e0b72", "conf.1" or "default");
// ibsm started by hand with --guid uses the GUID, else "default".
#pragma once

#include <cstdint>
#include <string>

#include <spdlog/fmt/fmt.h>

namespace ibsm::ctl {

inline constexpr const char* kRuntimeDir = "/run/ibsm";

inline std::string socket_path_for(const std::string& instance) {
  return std::string(kRuntimeDir) + "/" + instance + ".sock";
}

inline std::string default_instance(std::uint64_t guid) {
  return guid == 0 ? std::string("default") : fmt::format("0x{:016x}", guid);
}

}  // namespace ibsm::ctl
