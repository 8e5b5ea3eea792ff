#include "rest/basic_auth.hpp"

#include "rest/errors.hpp"

namespace ibsm::rest {

namespace {

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

}  // namespace

Result<std::string> decode_base64(std::string_view text) {
  if (text.size() % 4 != 0) return fail(kErrRestUnauthorized, "base64 length not a multiple of 4");
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = text[i + k];
      if (c == '=' && last && k >= 2) {
        v[k] = 0;
        ++pad;
        continue;
      }
      if (pad > 0) return fail(kErrRestUnauthorized, "base64 padding in the middle");
      v[k] = base64_value(c);
      if (v[k] < 0) return fail(kErrRestUnauthorized, "a character that is not base64");
    }
    const unsigned n = static_cast<unsigned>(v[0] << 18 | v[1] << 12 | v[2] << 6 | v[3]);
    out += static_cast<char>(n >> 16 & 0xff);
    if (pad < 2) out += static_cast<char>(n >> 8 & 0xff);
    if (pad < 1) out += static_cast<char>(n & 0xff);
  }
  return out;
}

Result<Credentials> parse_basic_authorization(std::string_view value) {
  if (value.size() > kMaxAuthorizationBytes) {
    return fail(kErrRestUnauthorized, "Authorization header too long");
  }
  value = trim(value);
  const auto space = value.find(' ');
  if (space == std::string_view::npos || !iequals(value.substr(0, space), "Basic")) {
    return fail(kErrRestUnauthorized, "Authorization is not HTTP Basic");
  }
  auto decoded = decode_base64(trim(value.substr(space + 1)));
  if (!decoded) return fail(kErrRestUnauthorized, "Basic credentials: " + decoded.error().message);
  const auto colon = decoded->find(':');
  if (colon == std::string::npos)
    return fail(kErrRestUnauthorized, "Basic credentials without ':'");
  if (colon == 0) return fail(kErrRestUnauthorized, "Basic credentials with an empty user");
  return Credentials{decoded->substr(0, colon), decoded->substr(colon + 1)};
}

}  // namespace ibsm::rest
