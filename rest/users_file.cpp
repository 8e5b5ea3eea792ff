#include "rest/users_file.hpp"

#include <crypt.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include <spdlog/fmt/fmt.h>

#include "common/lines.hpp"
#include "rest/errors.hpp"

namespace ibsm::rest {

namespace {

bool user_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-' || c == '@';
}

bool known_hash(std::string_view h) {
  for (std::string_view prefix : {"$6$", "$5$", "$y$", "$2b$"}) {
    if (h.size() > prefix.size() + 8 && h.substr(0, prefix.size()) == prefix) return true;
  }
  return false;
}

// Hashed when the user is unknown, so that a miss costs what a hit costs ("dummy").
constexpr const char* kDummyHash =
    "$6$ibsmdummysalt0$5eND7/uMXAWK/tkwmAnrjHJZaNwvmQfyv0RiRlrc7CrN2FgUpmVqPAcx9Bvy3HzDZoABUL6ta."
    "O.pqseUgrNX.";

bool equal_in_constant_time(std::string_view a, std::string_view b) {
  // The length of a crypt(3) hash is public (its scheme fixes it); the bytes are compared
  // without an early exit.
  unsigned diff = a.size() == b.size() ? 0u : 1u;
  const std::size_t n = a.size() < b.size() ? a.size() : b.size();
  for (std::size_t i = 0; i < n; ++i)
    diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

Result<Users> parse_users(std::string_view text, std::string_view file_name) {
  Users users;
  for (const text::Line& line : text::Lines(text)) {
    const auto bad = [&](std::string_view why) {
      return fail(kErrRestUsersFile, fmt::format("{}:{}: {}", file_name, line.number, why));
    };
    std::string_view l = line.text;
    while (!l.empty() && (l.back() == '\r' || l.back() == ' ' || l.back() == '\t')) {
      l.remove_suffix(1);
    }
    while (!l.empty() && (l.front() == ' ' || l.front() == '\t'))
      l.remove_prefix(1);
    if (l.empty() || l.front() == '#') continue;
    const auto colon = l.find(':');
    if (colon == std::string_view::npos) return bad("not user:hash");
    const std::string_view user = l.substr(0, colon);
    const std::string_view hash = l.substr(colon + 1);
    if (user.empty() || user.size() > 64)
      return bad("the user name is empty or over 64 characters");
    for (char c : user) {
      if (!user_char(c)) return bad("the user name has a character other than A-Z a-z 0-9 . _ @ -");
    }
    if (!known_hash(hash)) {
      return bad(
          fmt::format("user {}: the hash is not in crypt(3) form $6$, $5$, $y$ or $2b$ "
                      "(make one with `openssl passwd -6`)",
                      user));
    }
    if (!users.hashes.emplace(std::string(user), std::string(hash)).second) {
      return bad(fmt::format("user {} is listed twice", user));
    }
  }
  return users;
}

Status check_users_file_facts(const FileFacts& facts, std::string_view path) {
  if (!facts.regular) {
    return fail(kErrRestUsersFileMode, fmt::format("{}: not a regular file", path));
  }
  if (facts.uid != 0) {
    return fail(kErrRestUsersFileMode,
                fmt::format("{}: owned by uid {}, not root", path, facts.uid));
  }
  if ((facts.mode & 077) != 0) {
    return fail(kErrRestUsersFileMode,
                fmt::format("{}: mode {:04o} gives group or others access; chmod 600 it", path,
                            facts.mode & 07777));
  }
  return {};
}

Result<Users> load_users_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    return fail(kErrRestUsersFile, fmt::format("{}: {}", path, std::strerror(errno)));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } const closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    return fail(kErrRestUsersFile, fmt::format("{}: {}", path, std::strerror(errno)));
  }
  if (auto ok = check_users_file_facts({S_ISREG(st.st_mode), static_cast<unsigned>(st.st_uid),
                                        static_cast<unsigned>(st.st_mode)},
                                       path);
      !ok) {
    return fail(ok.error());
  }
  std::string text;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(kErrRestUsersFile, fmt::format("{}: {}", path, std::strerror(errno)));
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > kMaxUsersFileBytes) {
      return fail(kErrRestUsersFile, fmt::format("{}: over {} bytes", path, kMaxUsersFileBytes));
    }
  }
  return parse_users(text, path);
}

bool verify_password(const Users& users, std::string_view user, std::string_view password) {
  const auto it = users.hashes.find(user);
  const bool known = it != users.hashes.end();
  const std::string setting = known ? it->second : std::string(kDummyHash);
  const std::string phrase(password);  // crypt wants a NUL-terminated phrase
  if (phrase.find('\0') != std::string::npos) return false;
  auto data = std::make_unique<crypt_data>();  // zeroed, as crypt_rn asks
  const char* hashed = ::crypt_rn(phrase.c_str(), setting.c_str(), data.get(), sizeof *data);
  if (hashed == nullptr) return false;
  return equal_in_constant_time(hashed, setting) && known;
}

}  // namespace ibsm::rest
