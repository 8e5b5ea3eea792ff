// A standby's copy of the switches' forwarding tables, so that a takeover re-sends only
// the LFT blocks that differ from what the switches hold (IBA 14.4.11 lets a new master
// re-program everything; on a 5832-host fabric that is 115 000 blocks, more than half of
// the takeover's SMPs). While STANDBY the SM reads, with Gets only and a small window so
// the master's traffic is not disturbed, every switch's SwitchInfo (LinearFDBTop) and
// LFT blocks, pass after pass.
//
// When the copy may be trusted: the old master changes tables only when the fabric
// changes (or its configuration does). So the copy is used only if the fabric the new
// master discovers has the same links and LIDs as the fabric the standby read it in
// (topology_signature); a switch whose LinearFDBTop moved is re-sent in full
// (sm/tables/ SwitchTables::forget_reset_switches). A route change the old master made without a
// topology change (a SIGHUP with another routing engine) in the last pass before it died
// is not seen: documented in docs/ha.md.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "common/clock.hpp"
#include "mad/smp_client.hpp"
#include "sm/fabric/fabric.hpp"

namespace ibsm::sm::election {

// Links (both ends, GUIDs and port numbers) and the LIDs of every port, order-free.
std::uint64_t topology_signature(const Fabric& f);

struct MirroredTables {
  std::unordered_map<Guid, std::vector<PortNum>> lft;  // whole blocks, top rounded up
  std::unordered_map<Guid, Lid> top;                   // LinearFDBTop when read
  std::uint64_t signature = 0;                         // of the fabric they were read in
  bool empty() const { return lft.empty(); }
};

class LftMirror {
 public:
  // At most this many Gets of the mirror on the wire at once.
  explicit LftMirror(std::size_t max_in_flight = 8) : max_in_flight_(max_in_flight) {}

  // Starts reading the switches of `f` (the fabric the standby discovered); drops what
  // an earlier start read.
  void start(const Fabric& f);
  void stop();
  bool running() const { return running_; }
  // Puts Gets on the wire up to the window; call from the standby's loop. After each
  // full pass the mirror rests kPassPause, so a standby adds little steady load.
  void tick(mad::SmpClient& client, Clock::TimePoint now);
  static constexpr std::chrono::seconds kPassPause{10};
  // What was read completely, handed over once (the mirror stops).
  MirroredTables take();

  std::size_t complete_switches() const { return tables_.lft.size(); }
  std::size_t passes() const { return passes_; }
  // True once, after the first full pass since start() (for the log).
  bool take_first_pass_news() {
    const bool news = passes_ > 0 && !first_pass_told_;
    first_pass_told_ = first_pass_told_ || news;
    return news;
  }
  std::uint64_t blocks_read() const { return blocks_read_; }

 private:
  struct Target {
    Guid guid = 0;
    mad::DrPath path;
  };
  // The switch being read: its top from SwitchInfo, then its blocks.
  struct Reading {
    std::size_t target = 0;
    bool have_top = false;
    Lid top = 0;
    std::size_t next_block = 0;
    std::size_t blocks = 0;
    std::size_t answered = 0;
    bool failed = false;
    std::vector<PortNum> lft;
  };
  void begin_switch(std::size_t target);
  void finish_switch();

  std::size_t max_in_flight_;
  std::vector<Target> targets_;
  MirroredTables tables_;
  Reading cur_;
  bool running_ = false;
  std::size_t in_flight_ = 0;
  bool pass_done_ = false;
  Clock::TimePoint resume_at_{};
  std::uint64_t generation_ = 0;  // answers of an earlier start are ignored
  std::size_t passes_ = 0;
  bool first_pass_told_ = false;
  std::uint64_t blocks_read_ = 0;
};

}  // namespace ibsm::sm::election
