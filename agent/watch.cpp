#include "agent/watch.hpp"

#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "agent/cli.hpp"

namespace ibsm::agent {

void SocketNotifier::notify(const std::string& state) {
  if (socket_.empty() || socket_.size() >= sizeof(sockaddr_un::sun_path)) return;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, socket_.data(), socket_.size());
  if (socket_[0] == '@') addr.sun_path[0] = '\0';  // abstract namespace
  socklen_t len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + socket_.size());
  int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  // Best effort, as sd_notify: a lost status line must never stop the service.
  (void)::sendto(fd, state.data(), state.size(), MSG_NOSIGNAL,
                 reinterpret_cast<const sockaddr*>(&addr), len);
  ::close(fd);
}

static sigset_t watched_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

SignalEvents::SignalEvents() {
  sigset_t set = watched_signals();
  sigprocmask(SIG_BLOCK, &set, nullptr);
}

WakeReason SignalEvents::wait(std::chrono::milliseconds timeout) {
  sigset_t set = watched_signals();
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  ts.tv_nsec = static_cast<long>((timeout.count() % 1000) * 1000000);
  int sig = ::sigtimedwait(&set, nullptr, &ts);
  if (sig == SIGHUP) return WakeReason::kHangup;
  if (sig == SIGTERM || sig == SIGINT) return WakeReason::kStop;
  return WakeReason::kTimeout;  // EAGAIN (timeout) or EINTR
}

std::string fabric_fingerprint(const Fs& fs) {
  std::string out;
  const std::string root = "/sys/class/infiniband";
  for (const auto& dev : fs.list(root))
    for (const auto& port : fs.list(root + "/" + dev + "/ports")) {
      const std::string p = root + "/" + dev + "/ports/" + port;
      out += dev + "/" + port + " " + trim(fs.read(p + "/state").value_or("")) + " sm " +
             trim(fs.read(p + "/sm_lid").value_or("")) + " pkeys";
      for (const auto& idx : fs.list(p + "/pkeys")) {
        std::string v = trim(fs.read(p + "/pkeys/" + idx).value_or(""));
        if (v != "0x0000") out += " " + v;
      }
      out += "\n";
    }
  return out;
}

std::string port_fingerprint(const PortSource& ports) {
  auto devices = ports.devices();
  if (!devices) return "error " + devices.error().message + "\n";
  std::string out;
  for (const auto& d : *devices)
    for (const auto& p : d.ports) {
      out += d.name + "/" + std::to_string(p.number) + " " + std::to_string(p.state_code) + " " +
             p.state + " lid " + std::to_string(p.lid) + " sm " + std::to_string(p.sm_lid) +
             " pkeys";
      for (const auto& k : p.pkeys)
        out += " " + std::to_string(k.index) + ":" + std::to_string(k.value);
      out += "\n";
    }
  return out;
}

std::string pass_status(int status) {
  switch (status) {
    case kExitOk:
      return "converged";
    case kExitPending:
      return "applied; some sections pending (see the journal)";
    case kExitPartial:
      return "an action failed; retrying at the next change or interval";
    case kExitRefused:
      return "changes wait for a person (apply)";
    case kExitError:
      return "plan or node file errors; nothing applied (see the journal)";
    default:
      return "pass ended with status " + std::to_string(status);
  }
}

int run_watch(const WatchConfig& config, WatchEvents& events, Notifier& notifier,
              const std::function<PassResult()>& pass,
              const std::function<std::string()>& fingerprint, std::ostream& log) {
  std::string seen = fingerprint();
  std::string last_output;
  int last_status = -2;
  bool ready = false;
  auto since_pass = std::chrono::milliseconds::zero();
  WakeReason why = WakeReason::kTimeout;
  std::string trigger = "start";
  if (config.on_wake) config.on_wake();
  for (;;) {
    if (!trigger.empty()) {
      PassResult r = pass();
      // The journal gets a pass's report only when it says something new.
      if (r.output != last_output || r.status != last_status || r.status != kExitOk) {
        log << "pass (" << trigger << "): " << pass_status(r.status) << "\n" << r.output;
        log.flush();
      }
      last_output = r.output;
      last_status = r.status;
      notifier.notify(std::string(ready ? "" : "READY=1\n") + "STATUS=" + pass_status(r.status));
      ready = true;
      since_pass = std::chrono::milliseconds::zero();
      trigger.clear();
    }
    why = events.wait(config.poll);
    if (why == WakeReason::kStop) break;
    if (config.on_wake) config.on_wake();
    since_pass += config.poll;
    if (why == WakeReason::kHangup) {
      trigger = "SIGHUP";
      continue;
    }
    std::string now = fingerprint();
    if (now != seen) {
      trigger = "ports changed";
      seen = now;
    } else if (since_pass >= config.interval) {
      trigger = "interval";
    }
  }
  notifier.notify("STOPPING=1");
  return kExitOk;
}

}  // namespace ibsm::agent
