// `ibsm-agent watch`: the node service. It converges the host at start and
// again whenever the fabric changes: a port's state, its P_Key table or its SM
// LID (port_fingerprint below, polled each --poll-ms by a fresh `ibsm-agent fingerprint`
// process through the given port source), on SIGHUP, and every
// --interval (which also retries pending sections). Each pass is a fresh
// `ibsm-agent apply --unattended` process: it re-reads the node file, asks the SA
// anew, applies only what is safe without a person, and a crash in a pass never
// takes the service down. The loop talks to systemd through sd_notify (READY=1
// after the first pass, STATUS= after each, STOPPING=1 on exit).
#pragma once

#include <chrono>
#include <functional>
#include <ostream>
#include <string>

#include "agent/fs.hpp"
#include "agent/kernel.hpp"
#include "agent/port_source.hpp"

namespace ibsm::agent {

// What wakes the loop.
enum class WakeReason { kTimeout, kHangup, kStop };

// The loop's seams: waiting (signals + timeout), systemd, the pass process.
class WatchEvents {
 public:
  virtual ~WatchEvents() = default;
  // Waits up to `timeout` for SIGHUP or SIGTERM/SIGINT.
  virtual WakeReason wait(std::chrono::milliseconds timeout) = 0;
};

class Notifier {
 public:
  virtual ~Notifier() = default;
  virtual void notify(const std::string& state) = 0;  // "READY=1\nSTATUS=..."
};

// sd_notify(3)'s protocol without libsystemd: one datagram to $NOTIFY_SOCKET
// (a path, or an abstract name written with a leading '@'). Does nothing when
// the variable is unset (not started by systemd with Type=notify).
class SocketNotifier final : public Notifier {
 public:
  explicit SocketNotifier(std::string socket) : socket_(std::move(socket)) {}
  void notify(const std::string& state) override;

 private:
  std::string socket_;
};

// SIGHUP, SIGTERM and SIGINT, blocked for the process and taken with sigtimedwait.
class SignalEvents final : public WatchEvents {
 public:
  SignalEvents();
  WakeReason wait(std::chrono::milliseconds timeout) override;
};

// The state of a host's ports that should make the agent look again: per port,
// its state, SM LID and P_Key table, from sysfs (cheap, and live on a real host).
std::string fabric_fingerprint(const Fs& fs);

// The same facts (state, LID, SM LID, P_Key table of each port) through a port source:
// what `ibsm-agent fingerprint` prints for watch, so that it sees what its passes see
// (libibumad under umad2sim, where sysfs has no simulated ports). A source that fails
// gives its error's text.
std::string port_fingerprint(const PortSource& ports);

struct WatchConfig {
  std::chrono::milliseconds poll{1000};       // fingerprint polls
  std::chrono::milliseconds interval{60000};  // a pass at least this often
  // Called before the first pass and at every wake (e.g. SupervisedChild::keep_running).
  std::function<void()> on_wake;
};

struct PassResult {
  int status = -1;
  std::string output;
};

// Runs the loop until kStop. `pass` runs one unattended apply; `fingerprint` reads
// the fabric's state. Logs each pass whose output differs from the last one to `log`.
// Returns the exit status (0 after a stop).
int run_watch(const WatchConfig& config, WatchEvents& events, Notifier& notifier,
              const std::function<PassResult()>& pass,
              const std::function<std::string()>& fingerprint, std::ostream& log);

// One line for systemd's STATUS= from an apply's exit status.
std::string pass_status(int status);

}  // namespace ibsm::agent
