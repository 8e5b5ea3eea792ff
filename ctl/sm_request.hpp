// The commands the SM's thread carries out (changing ones, perfmgr, permodlog), as the
// ControlRequest the control queue carries (pure: who asks and where the answer goes are
// the server's to fill in).
#pragma once

#include <optional>

#include "ctl/command.hpp"
#include "ops/control_queue.hpp"

namespace ibsm::ctl {

// The request for `cmd`: action, argument, words and `changes`; nullopt for a command
// answered without the SM.
std::optional<ops::ControlRequest> control_request_for(const Command& cmd);

}  // namespace ibsm::ctl
