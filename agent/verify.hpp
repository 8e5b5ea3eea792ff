// Verify: per desired resource, what the system actually says. ok; drift (an
// apply would still change it); pending-sm (waiting for the SM: port not ACTIVE,
// P_Key not programmed yet); pending (the plan holds it: a fact such as the
// broadcast group's MTU is not known yet); failed (in place but not working, e.g. only limited
// membership where full is required, or a plan error); skipped (the host cannot do it:
// a NIC without DCB operations; counts as ok).
#pragma once

#include <string>
#include <vector>

#include "agent/fs.hpp"
#include "agent/observed.hpp"
#include "agent/plan.hpp"

namespace ibsm::agent {

enum class VerifyState { kOk, kPendingSm, kPending, kDrift, kFailed, kSkipped };
std::string_view state_name(VerifyState s);

struct Verdict {
  std::string resource;
  VerifyState state = VerifyState::kOk;
  std::string reason;
};

std::vector<Verdict> verify(const Plan& plan, const Observed& observed, const Fs& fs);

// 0 all ok, 2 something pending (the SM, or a held section), 3 drift or failure.
int verify_exit_code(const std::vector<Verdict>& verdicts);

}  // namespace ibsm::agent
