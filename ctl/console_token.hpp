// The loopback console's secret (console_token_file): 32 random bytes as 64 hex digits,
// written at start-up to a file of mode 0600 owned by ibsm's user (root in service), and
// removed at stop. A console client that sends `auth TOKEN` with it gets root's rights
// on that connection; without it the console is read-only. Only who can read the file
// (root, or ibsm's own user) can change the SM through the console: TCP itself tells
// ibsm nothing about who connected (docs/ctl.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace ibsm::ctl {

inline constexpr std::size_t kConsoleTokenHex = 64;

// A fresh token from the kernel's random source (getrandom).
Result<std::string> make_console_token();

// Writes `token` and a newline to `path`, mode 0600: into a new file beside it (O_EXCL,
// O_NOFOLLOW: never through a link someone left there), then renamed over `path`, so
// the file never exists with a wider mode or half written. An old file at `path` is
// replaced, whatever it was, unless it is a directory.
Status write_console_token(const std::string& path, std::string_view token);

// True if `given` equals `expected`. The time taken depends on expected's length only,
// never on where the two first differ.
bool token_matches(std::string_view given, std::string_view expected);

// The console's auth line: "auth TOKEN" (the word, blanks, the token); the token or
// nullopt when the line is not an auth line.
std::optional<std::string_view> auth_line_token(std::string_view line);

}  // namespace ibsm::ctl
