// Security traps (IBA 14.2.5.1, table 148: traps 256-259) that ports send the SM when
// someone uses a wrong key: 256 Bad M_Key (someone tried to read or program a port
// without its management key: a rogue SM, a misconfigured second SM, or an attack),
// 257 Bad P_Key, 258 Bad Q_Key, 259 Bad P_Key at a switch's external port. They are
// the fabric's intrusion alarms, so each is logged as a warning with its fields
// (OpenSM logs the same fields, osm_inform.c) and forwarded only to trusted InformInfo
// subscribers (sa/records/inform_info.cpp, C15-0.2-1.16). A port under attack can send
// thousands; the log keeps one line per issuer and trap per interval with the count of
// those it held back.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "common/clock.hpp"
#include "mad/attr/notice.hpp"

namespace ibsm::sm {

// True for the generic security traps 256-259.
bool is_security_trap(const mad::Notice& n);

// One line with the trap's fields decoded from its DataDetails (IBA 14.2.5.1 table 148):
// 256: requester LID, DR SLID, method, attribute, modifier, the M_Key used, and whether
// it came directed-route; 257/258: LID1, LID2, the key, SL, QP1, QP2, GID1, GID2; 259:
// the same plus the switch LID and port. nullopt when `n` is not a security trap.
std::optional<std::string> describe_security_trap(const mad::Notice& n);

// Rate limit for the log: at most one line per (issuer LID, trap) per `interval`.
class SecurityTrapLog {
 public:
  explicit SecurityTrapLog(std::chrono::milliseconds interval = std::chrono::seconds(10))
      : interval_(interval) {}
  // Whether to log this one now; `held_back` is how many of the same were not logged
  // since the last line.
  bool admit(std::uint16_t issuer, std::uint16_t trap, Clock::TimePoint now,
             std::uint64_t& held_back);
  std::uint64_t total() const { return total_; }

 private:
  struct Entry {
    Clock::TimePoint last{};
    std::uint64_t held_back = 0;
    bool logged = false;
  };
  std::chrono::milliseconds interval_;
  std::map<std::pair<std::uint16_t, std::uint16_t>, Entry> entries_;
  std::uint64_t total_ = 0;
};

}  // namespace ibsm::sm
