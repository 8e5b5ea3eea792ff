// The daemon's signals: SIGTERM/SIGINT stop the SM, SIGHUP asks for a reload and a
// heavy sweep, SIGUSR1 reopens the log, SIGUSR2 hands mastership over; SIGPIPE is
// ignored. The handlers only set the SM's ControlFlags, which its loop polls.
#pragma once

#include "sm/subnet_manager.hpp"

namespace ibsm::daemon {

// While one of these lives, the signals above set `control`'s flags. Installs the
// handlers on construction; on destruction the handlers find no flags and do nothing.
class SignalRouting {
 public:
  explicit SignalRouting(sm::ControlFlags& control);
  ~SignalRouting();
  SignalRouting(const SignalRouting&) = delete;
  SignalRouting& operator=(const SignalRouting&) = delete;
};

}  // namespace ibsm::daemon
