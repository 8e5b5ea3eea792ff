// The daemon's signal handlers (daemon/signals.hpp).
#include "daemon/signals.hpp"

#include <signal.h>

namespace ibsm::daemon {
namespace {

// Signal handlers can only reach process-wide state; this pointer is the one
// place the daemon's ControlFlags are visible to them.
sm::ControlFlags* g_control = nullptr;

extern "C" void on_signal(int sig) {
  if (g_control == nullptr) return;
  if (sig == SIGHUP) {
    g_control->heavy_sweep.store(true);
  } else if (sig == SIGUSR1) {
    g_control->reopen_log.store(true);
  } else if (sig == SIGUSR2) {
    g_control->handover.store(true);
  } else {
    g_control->stop.store(true);
  }
}

}  // namespace

SignalRouting::SignalRouting(sm::ControlFlags& control) {
  g_control = &control;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2})
    sigaction(sig, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

SignalRouting::~SignalRouting() {
  g_control = nullptr;
}

}  // namespace ibsm::daemon
