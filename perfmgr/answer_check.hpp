// PerfMgt answers bound to their queries (IBA 13.4.6.4, 16.1): the common rule of
// mad/answer_match.hpp (TID, class, GetResp, attribute, modifier, source LID), and for
// PortCounters and PortCountersExtended the PortSelect of the data, which names the
// port the counters are of (IBA 16.1.3.5 table 247, 16.1.4.11 table 258).
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "mad/answer_match.hpp"

namespace ibsm::perfmgr {

// `port_select`: the port a PortCounters(Extended) query asked for; nullopt for
// attributes without one (ClassPortInfo). An answer too short to hold PortSelect is
// left to the decoder (it is malformed, not foreign).
mad::Mismatch pm_answer_mismatch(const mad::SentMad& sent, std::optional<std::uint8_t> port_select,
                                 std::span<const std::uint8_t> bytes, mad::Lid slid);

}  // namespace ibsm::perfmgr
