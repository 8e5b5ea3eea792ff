// Requests that change the SM (resweep, reroute, priority, ...) reach the SM's
// thread through this queue: the control socket pushes from its own thread, the SM
// takes them between MAD polls and answers each through its `reply` callback, which
// it calls on the SM's thread and which must not block (the socket server queues the
// answer and wakes its poll loop).
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace ibsm::ops {

enum class ControlAction : std::uint8_t {
  kResweepHeavy,
  kResweepLight,
  kReroute,  // recompute routes from the current model, no rediscovery
  kSweepOn,
  kSweepOff,
  kPriority,  // arg: 0-15
  kHandover,  // SIGUSR2's handover to the best standby
  kLogLevel,  // arg: OpenSM log flags (already validated)
  kLogFlush,
  kUpdateDesc,       // re-read every NodeDescription
  kReloadConfig,     // as SIGHUP: re-read the configuration, then a heavy sweep
  kPerfmgr,          // words: the console's perfmgr subcommand (perfmgr/console.hpp)
  kReloadNodeNames,  // re-read node_name_map_name (as SIGHUP does)
  kPermodlog,        // words: [] show, [reload], or [module, flags]; arg: the flags (decimal)
  kHealthClear,      // words: [node GUID "0x..." , port number] (checked by ctl); issue 35
};

struct ControlReply {
  bool ok = true;
  std::uint16_t error_id = 0;  // IBSM-NNNN when !ok
  std::string text;            // one or more lines, no trailing newline
  // Work the SM's thread leaves to the receiver's (formatting a big answer from an
  // immutable snapshot it took: perfmgr print_counters, print_errors, dump_counters). When
  // set, the receiver calls it, off the SM's thread, and answers with what it returns.
  std::function<ControlReply()> finish = {};
};

struct ControlRequest {
  ControlAction action = ControlAction::kResweepHeavy;
  std::string arg;
  std::vector<std::string> words;  // kPerfmgr: the words after "perfmgr"
  bool changes = true;             // false: a read-only request that needs the SM's thread
  std::uint32_t uid = 0;           // who asked (logged when it changes something)
  std::string command;             // the command line as typed (logged)
  std::function<void(ControlReply)> reply;
};

class ControlQueue {
 public:
  // Any thread. Refused (false) when `limit` requests already wait: a flood of
  // commands cannot grow the SM's work without bound.
  bool push(ControlRequest r, std::size_t limit = 64) {
    std::lock_guard lock(mu_);
    if (queue_.size() >= limit) return false;
    queue_.push_back(std::move(r));
    return true;
  }
  // SM thread: what waits, in arrival order. Never waits for the lock: when a
  // producer holds it, the requests are taken at the next turn of the loop.
  std::vector<ControlRequest> take() {
    std::unique_lock lock(mu_, std::try_to_lock);
    if (!lock.owns_lock()) return {};
    return std::exchange(queue_, {});
  }

 private:
  std::mutex mu_;
  std::vector<ControlRequest> queue_;
};

}  // namespace ibsm::ops
