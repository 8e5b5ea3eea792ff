// Reads network interfaces from /sys/class/net and the interfaces carrying a
// default route from /proc/net/route and /proc/net/ipv6_route.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "agent/fs.hpp"
#include "agent/observed.hpp"

namespace ibsm::agent {

std::vector<NetDevice> read_netdevs(const Fs& fs);
std::set<std::string> read_default_route_interfaces(const Fs& fs);

}  // namespace ibsm::agent
