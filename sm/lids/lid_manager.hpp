// LID assignment (IBA 7.11.1 and 14.4.3), as pure functions.
//
// Order of preference for each port, so that LIDs never move while a node stays:
//  1. the LID the port already has, if valid for its LMC and no other port holds it;
//  2. the LID recorded for its GUID in guid2lid, if still free;
//  3. the lowest free range, skipping ranges guid2lid keeps for absent ports.
// The SM's own port is placed first so a cold fabric gives it LID 1, as OpenSM does.
#pragma once

#include <vector>

#include "common/result.hpp"
#include "sm/errors.hpp"
#include "sm/lids/guid2lid.hpp"

namespace ibsm::sm {

struct LidRequest {
  mad::Guid guid = 0;    // port GUID
  mad::Lid current = 0;  // PortInfo.LID as read
  std::uint8_t lmc = 0;  // LMC this port gets
  bool is_sm_port = false;
};

struct LidPolicy {
  bool reassign = false;  // -r: ignore current LIDs and guid2lid
  // honor_guid2lid_file (-x) when leaving STANDBY: guid2lid wins over the LID a port
  // reports, so ports the old master numbered differently move back (OpenSM's rule).
  bool guid2lid_first = false;
  mad::Lid max_lid = mad::kMaxUnicastLid;  // further limited by switches' LinearFDBCap
};

// IBA 7.11.1: with LMC n a port answers to 2^n LIDs whose low n bits of the base are 0.
constexpr bool lid_range_valid(mad::Lid base, std::uint8_t lmc, mad::Lid max_lid) {
  const unsigned count = 1u << lmc;
  return base != 0 && (base & (count - 1)) == 0 && base + count - 1 <= max_lid;
}

// The LMC a LID-holding port gets (IBA 7.11.1, 14.2.5.6): end ports take the subnet's LMC;
// a switch's port 0 takes it only when it is an enhanced port 0 and lmc_esp0 is set
// (a base port 0 answers to one LID, IBA C14-3), as OpenSM's osm_lid_mgr.c does.
constexpr std::uint8_t port_lmc(bool is_switch, bool enhanced_port0, std::uint8_t lmc,
                                bool lmc_esp0) {
  if (!is_switch) return lmc;
  return enhanced_port0 && lmc_esp0 ? lmc : 0;
}

// Returns one base LID per request, in request order; fails only when the unicast
// LID space cannot hold every port.
Result<std::vector<mad::Lid>> assign_lids(const std::vector<LidRequest>& requests,
                                          const Guid2Lid& db, const LidPolicy& policy);

}  // namespace ibsm::sm
