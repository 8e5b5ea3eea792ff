// HTTP Basic authentication (RFC 7617) of the REST API: the Authorization header's
// credentials, decoded from untrusted input with a bound. The users file and the
// password check are rest/users_file.hpp; the failed-login limiter rest/login_limiter.hpp.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace ibsm::rest {

// A header value longer than this is refused before decoding (a user and a password of
// some hundred bytes each fit).
inline constexpr std::size_t kMaxAuthorizationBytes = 1024;

struct Credentials {
  std::string user;
  std::string password;
};

// `value` is the Authorization header's value: "Basic <base64 of user:password>", the
// scheme in any case. Errors (kErrRestUnauthorized) say what is wrong, never the
// password: too long, not Basic, bad base64, no ':', an empty user.
Result<Credentials> parse_basic_authorization(std::string_view value);

// Strict base64 (RFC 4648 alphabet, '=' padding to a multiple of 4); nullopt-like error
// on any other character. Exposed for the tests.
Result<std::string> decode_base64(std::string_view text);

}  // namespace ibsm::rest
