// CcProgrammer: Sets the congestion control attributes (sm/cc/cc_settings.hpp) into
// every switch (SwitchCongestionSetting, to port 0) and every CA port
// (CACongestionSetting and the CongestionControlTable blocks), as OpenSM's
// osm_congestion_control.c does, over the GSI with the configured CC_Key.
//
// It never holds up a sweep: SubnetManager starts a round after SUBNET UP, and the
// main loop's turns (tick) keep at most cc_max_outstanding_mads Sets on the wire;
// the answers come back through mad::MadDispatcher (class 0x21) into on_mad. A
// value a port acknowledged is remembered by port GUID and not sent again until it
// changes (OpenSM compares with the port's last answer the same way).
//
// A port that answers with an error status, with a MAD of the wrong layout, or not
// at all after the retries is logged once (IBSM-2601/2603/2602) and skipped while
// it stays in the fabric; changed settings (SIGHUP) give every port another try.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "common/log_limit.hpp"
#include "mad/answer_match.hpp"
#include "mad/transport.hpp"
#include "mad/types.hpp"
#include "sm/cc/cc_settings.hpp"
#include "sm/fabric/fabric.hpp"

namespace ibsm::sm::cc {

// What receives Sets: a switch's port 0, or a CA port with a LID. Routers get
// nothing (OpenSM programs switches and CAs only).
struct CcTarget {
  mad::Guid node_guid = 0;
  mad::Guid port_guid = 0;
  mad::PortNum port = 0;
  mad::Lid lid = 0;
  bool is_switch = false;
  std::string description;
};
std::vector<CcTarget> cc_targets(const Fabric& f);

struct CcTiming {
  std::chrono::milliseconds timeout{200};  // transaction_timeout
  unsigned retries = 3;                    // transaction_retries
  std::uint8_t sl = 0;                     // sm_sl
};

class CcProgrammer {
 public:
  CcProgrammer(mad::MadTransport& transport, const Clock& clock, Logger log)
      : transport_(transport), clock_(clock), log_(std::move(log)) {}

  // New settings: when they differ from the last ones, every port is tried again and
  // every value is sent again where the port does not hold it.
  void configure(const CcSettings& settings, const CcTiming& timing);
  const CcSettings& settings() const { return settings_; }

  // Queues what the targets do not hold; ports no longer among them are forgotten.
  void start_round(const std::vector<CcTarget>& targets);
  // A class 0x21 MAD from the dispatcher: an answer, or the kernel returning a Set it
  // gave up on (status ETIMEDOUT).
  void on_mad(const mad::IncomingMad& in);
  // Sends what the window allows and retries or gives up what ran out of time.
  void tick();
  // Stops the round (no longer master): nothing queued, answers still out ignored.
  void stop();
  // A new master trusts nothing the ports were told before.
  void forget_held() { held_.clear(); }

  bool idle() const { return queue_.empty() && on_wire_.empty(); }
  bool skipped(mad::Guid port_guid) const { return skipped_.contains(port_guid); }

  struct Counters {
    std::uint64_t sent = 0;      // Sets put on the wire (retries included)
    std::uint64_t answered = 0;  // acknowledged with status 0
    std::uint64_t retries = 0;
    std::uint64_t refused = 0;  // ports skipped for an error status
    std::uint64_t silent = 0;   // ports skipped for no answer
    std::uint64_t bad = 0;      // ports skipped for a malformed answer
    std::uint64_t foreign = 0;  // answers with a live TID but not its Set's (dropped)
  };
  const Counters& counters() const { return counters_; }

 private:
  using AttrKey = std::pair<std::uint16_t, std::uint32_t>;  // attribute, modifier
  struct Pending {
    CcTarget target;
    CcAttr attr = CcAttr::kSwitchCongestionSetting;
    std::uint32_t attr_mod = 0;
    CcData data{};
    unsigned attempts = 0;
  };
  struct OnWire {
    Pending p;
    Clock::TimePoint deadline;
    mad::SentMad sent;  // what its answer must show (mad/answer_match.hpp)
  };

  void queue(const CcTarget& t, CcAttr attr, std::uint32_t mod, const CcData& data);
  void send(Pending p);
  void attempt_failed(std::uint32_t tid);
  // Logs once and drops everything else of the port.
  void skip(const CcTarget& t, ErrorId why, const std::string& what);
  void finish_round_if_done();

  mad::MadTransport& transport_;
  const Clock& clock_;
  Logger log_;
  CcSettings settings_;
  CcTiming timing_;
  std::deque<Pending> queue_;
  std::unordered_map<std::uint32_t, OnWire> on_wire_;              // by TID bits 0-31
  std::unordered_map<mad::Guid, std::map<AttrKey, CcData>> held_;  // acknowledged, by port
  std::unordered_map<mad::Guid, ErrorId> skipped_;
  std::uint32_t next_tid_ = 0x7a93;  // OpenSM's first CC TID; any value does
  bool round_open_ = false;
  std::uint64_t round_sets_ = 0;
  std::uint64_t round_ports_ = 0;
  Counters counters_;
  LogLimit foreign_log_;
};

}  // namespace ibsm::sm::cc
