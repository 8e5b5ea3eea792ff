// Which end port is a member of which partition, and how: the resolved rules
// applied in order to the ports of a fabric (osm_prtn.c osm_prtn_add_port and
// osm_prtn_config.c manage_membership_change). Ports named by GUID that are not in
// the fabric are ignored, as in OpenSM.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "partitions/diagnostic.hpp"
#include "partitions/fabric.hpp"
#include "partitions/resolve.hpp"

namespace ibsm::partitions {

struct MemberState {
  bool limited = false;
  bool full = false;
  bool any() const { return limited || full; }
  bool operator==(const MemberState&) const = default;
};

struct PortMembership {
  std::map<std::uint16_t, MemberState> pkeys;  // by 15-bit P_Key
  std::uint16_t indx0_pkey = 0;                // P_Key (with membership bit) for index 0
};

struct MembershipOptions {
  bool allow_both_pkeys = false;  // opensm.conf allow_both_pkeys
  // ibsm keeps the SM's port a full member of 0x7fff even if the file says otherwise
  // (OpenSM does not: "Default=0x7fff: ALL=limited;" makes it limited).
  bool sm_port_always_full = true;
};

struct MembershipResult {
  std::map<std::uint64_t, PortMembership> ports;  // by port GUID, end ports only
  std::vector<Diagnostic> diagnostics;
  // Partitions with at least one member in the fabric (OpenSM deletes the others,
  // and their multicast groups with them).
  std::vector<bool> partition_present;
};

MembershipResult compute_membership(const ResolvedConfig& config, const Fabric& fabric,
                                    const MembershipOptions& options = {});

}  // namespace ibsm::partitions
