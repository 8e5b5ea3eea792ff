// The answers to read-only commands, computed from one OpsSnapshot on the caller's
// thread (the control server's), never the SM's. Each answer carries OpenSM-like
// text and the "result" member of the --json document (docs/ctl.md, schema). One file
// per command family in ctl/reports/ (families.hpp lists them).
#pragma once

#include <string>
#include <string_view>

#include "common/error.hpp"
#include "ctl/command.hpp"
#include "ops/event_bus.hpp"
#include "ops/ops_snapshot.hpp"

namespace ibsm::ctl {

struct Answer {
  bool ok = true;
  ErrorId error{};
  std::string text;  // lines, each ending in '\n'
  std::string json;  // the "result" value (ok) or empty
};

Answer error_answer(const Error& e);

// Everything that needs no SM thread. `events` serves the history of `events`.
// `sees_secrets`: dump_conf shows the keys (root and ibsm's own user); otherwise every
// key's value is replaced by <redacted> (redact_secrets).
Answer answer_read_only(const Command& cmd, const ops::OpsSnapshot& snap,
                        const ops::EventBus& events, bool sees_secrets = false);

// True for an option whose value is a secret: every *_key (m_key, sm_key, sa_key, cc_key,
// and any later one) and anything named secret, password or passwd.
bool is_secret_option(std::string_view key);
// opensm.conf text (write_opensm_conf's) with the value of every secret option, on
// "key value" and "#ibsm: key value" lines, replaced by <redacted>. A file made from it
// does not load (the value is not a number), rather than loading without the keys.
std::string redact_secrets(std::string_view conf_text);

// help [command]
Answer answer_help(const Command& cmd);

}  // namespace ibsm::ctl
