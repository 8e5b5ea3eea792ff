// The answers to read-only commands, computed from one OpsSnapshot on the caller's
// thread (the control server's), never the SM's. Each answer carries OpenSM-like
// text and the "result" member of the --json document (docs/ctl.md, schema).
#pragma once

#include <string>

#include "common/error.hpp"
#include "ctl/command.hpp"
#include "sm/ops/event_bus.hpp"
#include "sm/ops/ops_snapshot.hpp"

namespace ibsm::ctl {

struct Answer {
  bool ok = true;
  ErrorId error{};
  std::string text;  // lines, each ending in '\n'
  std::string json;  // the "result" value (ok) or empty
};

Answer error_answer(const Error& e);

// Everything that needs no SM thread. `events` serves the history of `events`.
Answer answer_read_only(const Command& cmd, const sm::ops::OpsSnapshot& snap,
                        const sm::ops::EventBus& events);

// help [command]
Answer answer_help(const Command& cmd);

}  // namespace ibsm::ctl
