// The ibsm-agent command line: verbs show, plan (default), apply, verify, watch,
// render and test; `ibsm-agent VERB --help` prints each verb's exit status.
// Exit codes (docs/agent.md, ibsm-agent(8)):
//   all verbs: 0 success, 1 usage/node-file/observation error or plan errors
//   plan:      0 no changes, 2 changes planned or a section pending
//   apply:     0 applied (or nothing to do), 2 applied but a section is pending,
//              4 an action failed (what it had changed was rolled back), 5 refused (needs --force)
//   verify:    0 all ok, 2 pending (the SM, or a held section), 3 drift or failed
//   watch:     0 stopped by SIGTERM/SIGINT
//   test:      0 every check passed or was skipped, 3 a check failed
#pragma once

#include <ostream>

namespace ibsm::agent {

inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitChanges = 2;
inline constexpr int kExitPending = 2;
inline constexpr int kExitDrift = 3;
inline constexpr int kExitPartial = 4;
inline constexpr int kExitRefused = 5;

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace ibsm::agent
