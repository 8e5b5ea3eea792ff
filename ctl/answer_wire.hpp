// How one answer is written on a connection (docs/ctl.md, "Protocol and --json"), as a
// pure function so that the socket thread and the workers write it alike: the text, or
// one JSON document with --json; on the Unix socket framed (a line starting with '.'
// gets one more, then `.ok` or `.err`), on the console followed by the prompt.
#pragma once

#include <string>
#include <string_view>

#include "ctl/reports.hpp"

namespace ibsm::ctl {

inline constexpr std::string_view kConsolePrompt = "ibsm $ ";

std::string encode_answer(bool framed, bool json, std::string_view name, const Answer& a);

}  // namespace ibsm::ctl
