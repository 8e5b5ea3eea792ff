// TrapFilter: what the master does with a trap that keeps coming back.
//
// A port with a bad cable or a failing PHY can send the same trap many times a second
// (Trap 129 local link integrity, 130 buffer overrun, 131 flow-control watchdog; or the
// same Trap 128 over and over). Each one would otherwise cost a heavy sweep. As OpenSM's
// osm_trap_rcv.c does, identical traps (same source LID, port and notice) are counted
// (SubnetManager exempts Traps 128 and 144: their notices name only the issuer, so distinct
// link changes look identical; bursts of those are bounded by sweep coalescing instead)
// while they keep arriving within an aging window (5 s, 60 s once a port is marked
// unhealthy): from the 10th on they are acknowledged but ignored, except that
//  - a port-error trap (129-131) marks its port unhealthy once, which asks for one heavy
//    sweep, and
//  - with babbling_port_policy, a port that has sent 250 of them in a row is disabled
//    (PortInfo Set: PortState Down, PortPhysicalState Disabled on the end of its link
//    nearer the SM), after which only a new heavy sweep of an admin can bring it back.
// Pure: the clock comes in, a verdict goes out; SubnetManager acts on it.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>

#include "common/clock.hpp"
#include "mad/attr/notice.hpp"
#include "mad/types.hpp"

namespace ibsm::sm {

using mad::Lid;

// Traps 129-131 report a problem of one physical port (IBA 14.2.5.1 table 150).
bool is_port_error_trap(const mad::Notice& n);

class TrapFilter {
 public:
  static constexpr unsigned kQuietAfter = 10;                        // OpenSM: num_received >= 10
  static constexpr unsigned kBabblingThreshold = 250;                // OpenSM: babbling_port_policy
  static constexpr auto kAging = std::chrono::seconds(5);            // trap suppression
  static constexpr auto kUnhealthyAging = std::chrono::seconds(60);  // once unhealthy

  struct Verdict {
    unsigned repeats = 0;       // identical traps before this one, within the window
    bool ignore = false;        // noisy: acknowledge and forget (no sweep, no report)
    bool sweep = false;         // ask for a heavy sweep (a port just turned unhealthy)
    bool disable_port = false;  // babbling_port_policy: disable the port now
    Lid port_lid = 0;           // port-error traps: the port the trap is about
    mad::PortNum port_num = 0;
  };

  // One trap from `source_lid` (the MAD's SLID).
  Verdict admit(const mad::Notice& n, Lid source_lid, Clock::TimePoint now,
                bool babbling_port_policy);

  // Ports marked unhealthy and not yet aged out (for the log and tests).
  std::size_t unhealthy_ports() const;
  // Forgets everything (a new master starts afresh).
  void clear() { entries_.clear(); }

 private:
  struct Entry {
    unsigned count = 0;
    Clock::TimePoint expires{};
    bool unhealthy = false;
  };
  std::unordered_map<std::uint64_t, Entry> entries_;
  std::size_t admitted_since_prune_ = 0;
};

}  // namespace ibsm::sm
