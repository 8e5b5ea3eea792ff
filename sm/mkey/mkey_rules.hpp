// M_Key protocol rules (IBA 14.2.4, 14.2.5.6 PortInfo, 14.4.x SMInfo) and OpenSM's
// option adjustments, as small pure functions. Nothing here sends or stores.
#pragma once

#include <algorithm>
#include <cstdint>

#include "mad/attr/port_info.hpp"
#include "mad/types.hpp"

namespace ibsm::sm::mkey {

// m_key_protection_level: IBA defines 0-3; OpenSM forces anything above 3 to 2.
constexpr std::uint8_t effective_protection_level(unsigned configured) {
  return configured > 3 ? 2 : static_cast<std::uint8_t>(configured);
}

// m_key_lease_period (seconds). A protected port whose lease runs out drops its
// protection; the SM must come by (sweep) before that, so OpenSM raises a lease that
// is not longer than the sweep interval to sweep_interval + 1. Level 0 or lease 0
// (never expires): as configured.
constexpr std::uint16_t effective_lease_period(std::uint8_t level, std::uint16_t lease,
                                               std::uint32_t sweep_interval) {
  if (level == 0 || lease == 0 || sweep_interval < lease) return lease;
  return static_cast<std::uint16_t>(std::min<std::uint32_t>(sweep_interval + 1, 0xFFFF));
}

// With protected leases a subnet that never sweeps would lose its protection:
// OpenSM turns sweeping back on with an interval of lease - 1.
constexpr std::uint32_t effective_sweep_interval(std::uint8_t level, std::uint16_t lease,
                                                 std::uint32_t sweep_interval) {
  if (level == 0 || lease == 0 || sweep_interval != 0) return sweep_interval;
  return lease > 1 ? lease - 1u : 1u;
}

// Whether an M_Key read from a PortInfo GetResp is the port's real key (OpenSM's rule):
// only CA/router ports and switch port 0 hold keys, and a port at level >= 1 shows 0 to
// a request with the wrong key, so 0 with ProtectBits > 0 means "hidden".
constexpr bool key_read_is_trustworthy(bool lid_holder, const mad::PortInfo& pi) {
  return lid_holder && (pi.m_key != 0 || pi.m_key_protect_bits == 0);
}

// The port hid its key from us: we cannot program it until its lease expires
// (IBA 14.2.4.1; OpenSM logs "has unknown M_Key").
constexpr bool key_unknown(const mad::PortInfo& pi) {
  return pi.m_key_protect_bits > 0 && pi.m_key == 0;
}

// How our own SM port treats an SMInfo request by its M_Key (IBA C14-67; OpenSM's
// osm_sminfo_rcv.c since 3.3.21). A port without a key takes any request.
enum class SmInfoAccess : std::uint8_t {
  kAnswer,         // answer normally
  kAnswerNoSmKey,  // Get at ProtectBits 1 with a wrong key: SM_Key field 0
  kDrop,           // Get at ProtectBits >= 2 or Set with a wrong key: no answer
};
constexpr SmInfoAccess sminfo_access(mad::Method method, std::uint64_t own_key,
                                     std::uint8_t own_protect_bits, std::uint64_t request_key) {
  if (own_key == 0 || own_key == request_key) return SmInfoAccess::kAnswer;
  if (method != mad::Method::kGet) return SmInfoAccess::kDrop;
  if (own_protect_bits >= 2) return SmInfoAccess::kDrop;
  return own_protect_bits == 1 ? SmInfoAccess::kAnswerNoSmKey : SmInfoAccess::kAnswer;
}

}  // namespace ibsm::sm::mkey
