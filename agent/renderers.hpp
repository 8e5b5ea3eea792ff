// Renders IPoIB interfaces into the files a network manager reads:
// NetworkManager keyfiles (nm-settings-keyfile(5)) and systemd-networkd
// .netdev/.network units (systemd.netdev(5), systemd.network(5), v250+).
#pragma once

#include <string>
#include <vector>

#include "agent/plan.hpp"

namespace ibsm::agent {

std::string nm_keyfile_path(
    const ResolvedIface& r);  // /etc/NetworkManager/system-connections/ibsm-<name>.nmconnection
std::string nm_connection_id(const ResolvedIface& r);  // ibsm-<name>
std::string render_nm_keyfile(const ResolvedIface& r);

std::string networkd_path(const std::string& iface,
                          const std::string& ext);  // /etc/systemd/network/60-ibsm-<iface>.<ext>
// A child's .netdev (Kind=ipoib, [IPoIB] PartitionKey/Mode).
std::string render_networkd_netdev(const ResolvedIface& child);
// An interface's .network: MTU and addresses; a parent also lists its children in IPoIB=.
std::string render_networkd_network(const ResolvedIface& r,
                                    const std::vector<std::string>& children);

// /etc/network/interfaces.d/ibsm-<iface with '.' as '-'>: run-parts names (used by
// source-directory) allow no dots.
std::string ifupdown_path(const std::string& iface);
// An ifupdown stanza (interfaces(5)): ifupdown has no IPoIB method, so the stanza is
// "inet manual" with iproute2 hooks: a child is created in pre-up and deleted in
// post-down; mode, MTU and addresses are set idempotently (ip addr replace).
std::string render_ifupdown_stanza(const ResolvedIface& r);

}  // namespace ibsm::agent
