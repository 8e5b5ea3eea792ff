// How one answer is written on a connection (docs/ctl.md, "Protocol and --json"), as a
// pure function so that the socket thread and the workers write it alike: the text, or
// one JSON document with --json; on the Unix socket framed (a line starting with '.'
// gets one more, then `.ok` or `.err`), on the console followed by the prompt.
#pragma once

#include <string>
#include <string_view>

#include "ctl/reports/reports.hpp"

namespace ibsm::ctl {

inline constexpr std::string_view kConsolePrompt = "ibsm $ ";

// An answer on the wire: `head`, `body`, then `tail` (a last newline, the terminator or
// the prompt). The body is the answer's own text, or with --json its own "result"
// document, moved, unless a line needs a '.' added: a report of many MiB is not copied
// on its way to the client.
struct AnswerWire {
  std::string head;
  std::string body;
  std::string tail;
};

AnswerWire encode_answer_parts(bool framed, bool json, std::string_view name, Answer a);

// head + body + tail, for the short answers that are written at once.
std::string encode_answer(bool framed, bool json, std::string_view name, const Answer& a);

}  // namespace ibsm::ctl
