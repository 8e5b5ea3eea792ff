#include "ctl/console_token.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <spdlog/fmt/fmt.h>

#include "ctl/errors.hpp"

namespace ibsm::ctl {

Result<std::string> make_console_token() {
  unsigned char bytes[kConsoleTokenHex / 2];
  std::size_t got = 0;
  while (got < sizeof(bytes)) {
    const ssize_t n = ::getrandom(bytes + got, sizeof(bytes) - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(kErrConsoleToken,
                  fmt::format("no random bytes for the console token: {}", std::strerror(errno)));
    }
    got += static_cast<std::size_t>(n);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  token.reserve(kConsoleTokenHex);
  for (const unsigned char b : bytes) {
    token += kHex[b >> 4];
    token += kHex[b & 15];
  }
  return token;
}

Status write_console_token(const std::string& path, std::string_view token) {
  const std::string tmp = path + ".new";
  ::unlink(tmp.c_str());  // a file left by a run that died between open and rename
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return fail(kErrConsoleToken, fmt::format("cannot create the console token file {}: {}", tmp,
                                              std::strerror(errno)));
  const std::string text = std::string(token) + "\n";
  // The mode asked of open() is narrowed by the umask, never widened; fchmod makes it
  // exactly 0600 whatever the umask.
  bool ok = ::fchmod(fd, 0600) == 0 &&
            ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int err = errno;
  ok = ::close(fd) == 0 && ok;
  if (ok && ::rename(tmp.c_str(), path.c_str()) == 0) return {};
  const int why = ok ? errno : err;
  ::unlink(tmp.c_str());
  return fail(kErrConsoleToken,
              fmt::format("cannot write the console token file {}: {}", path, std::strerror(why)));
}

bool token_matches(std::string_view given, std::string_view expected) {
  // Every byte of `expected` is compared, against the byte at the same place of `given`
  // or a zero past its end; the lengths are folded in at the end.
  unsigned diff = given.size() == expected.size() ? 0U : 1U;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const unsigned char g = i < given.size() ? static_cast<unsigned char>(given[i]) : 0;
    diff |= g ^ static_cast<unsigned char>(expected[i]);
  }
  return diff == 0 && !expected.empty();
}

std::optional<std::string_view> auth_line_token(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  const auto first = line.find_first_not_of(" \t");
  if (first == std::string_view::npos) return std::nullopt;
  line.remove_prefix(first);
  if (!line.starts_with("auth")) return std::nullopt;
  line.remove_prefix(4);
  if (!line.empty() && line.front() != ' ' && line.front() != '\t') return std::nullopt;
  const auto start = line.find_first_not_of(" \t");
  if (start == std::string_view::npos) return std::string_view{};
  line.remove_prefix(start);
  const auto end = line.find_last_not_of(" \t");
  return line.substr(0, end + 1);
}

}  // namespace ibsm::ctl
