// The REST API's users file: `user:hash` lines, the hash in crypt(3) form as
// `openssl passwd -6` writes it ($6$salt$...); '#' comments and blank lines. The file
// must be a regular file owned by root with no group or other permission (it holds
// password hashes). Passwords are checked with libcrypt's crypt_rn and compared in
// constant time; an unknown user costs a hash too, so timing does not tell which users
// exist.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace ibsm::rest {

inline constexpr std::size_t kMaxUsersFileBytes = 64 * 1024;

struct Users {
  std::map<std::string, std::string, std::less<>> hashes;  // user -> crypt(3) hash
};

// Errors (kErrRestUsersFile) name `file_name`:line: a line without ':', a user name not
// of [A-Za-z0-9._@-] (1-64 characters), a user listed twice, a hash not $6$, $5$, $y$ or
// $2b$.
Result<Users> parse_users(std::string_view text, std::string_view file_name);

// What stat(2) says of the file, so the check is a pure function.
struct FileFacts {
  bool regular = false;
  unsigned uid = 0;
  unsigned mode = 0;  // permission bits
};
// kErrRestUsersFileMode unless a regular file owned by root with mode & 077 == 0.
Status check_users_file_facts(const FileFacts& facts, std::string_view path);

// Opens without following a symlink, checks the open file's facts, reads it (bounded).
Result<Users> load_users_file(const std::string& path);

// True when `user` is in `users` and `password` hashes to its hash.
bool verify_password(const Users& users, std::string_view user, std::string_view password);

}  // namespace ibsm::rest
