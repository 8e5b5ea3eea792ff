#include "agent/input_grammar.hpp"

#include <arpa/inet.h>

#include <algorithm>

namespace ibsm::agent {
namespace {

bool grammar_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// Every character of `s` is alphanumeric or one of `extra`.
bool grammar_chars(std::string_view s, std::string_view extra) {
  return std::all_of(s.begin(), s.end(), [&](char c) {
    return grammar_alnum(c) || extra.find(c) != std::string_view::npos;
  });
}

bool grammar_dot_name(std::string_view s) {
  return s == "." || s == "..";
}

}  // namespace

bool valid_ifname(std::string_view s) {
  return !s.empty() && s.size() <= 15 && grammar_chars(s, "_.:-") && !grammar_dot_name(s);
}

bool valid_rdma_device_name(std::string_view s) {
  return !s.empty() && s.size() <= 64 && grammar_chars(s, "_.:-") && !grammar_dot_name(s);
}

bool valid_module_name(std::string_view s) {
  return !s.empty() && s.size() <= 56 && grammar_chars(s, "_-");
}

bool valid_group_name(std::string_view s) {
  return !s.empty() && s.size() <= 32 && (grammar_alnum(s[0]) || s[0] == '_') &&
         !(s[0] >= '0' && s[0] <= '9') && grammar_chars(s, "_.-");
}

bool valid_service_name(std::string_view s) {
  constexpr std::string_view suffix = ".service";
  return s.size() > suffix.size() && s.size() <= 255 &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0 &&
         grammar_chars(s, "_.:@-") && s[0] != '.';
}

bool valid_plain_path(std::string_view s) {
  if (s.size() < 2 || s.size() > 4095 || s[0] != '/' || s.back() == '/') return false;
  std::size_t at = 1;
  while (at <= s.size()) {
    std::size_t end = s.find('/', at);
    if (end == std::string_view::npos) end = s.size();
    std::string_view part = s.substr(at, end - at);
    if (part.empty() || grammar_dot_name(part) || !grammar_chars(part, "_.+@-")) return false;
    at = end + 1;
  }
  return true;
}

bool valid_nfs_export(std::string_view s) {
  std::string_view host, path;
  if (!s.empty() && s[0] == '[') {
    auto close = s.find("]:/");
    if (close == std::string_view::npos) return false;
    host = s.substr(1, close - 1);
    path = s.substr(close + 2);
    if (host.empty() || !grammar_chars(host, ":.")) return false;
  } else {
    auto colon = s.find(":/");
    if (colon == std::string_view::npos || colon == 0) return false;
    host = s.substr(0, colon);
    path = s.substr(colon + 1);
    if (!grammar_chars(host, "_.-")) return false;
  }
  return path == "/" || valid_plain_path(path);
}

bool valid_mount_option(std::string_view s) {
  return !s.empty() && s.size() <= 255 && grammar_chars(s, "_.=:/+@-");
}

bool valid_address(std::string_view s) {
  auto slash = s.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash > 45) return false;
  std::string addr(s.substr(0, slash));
  std::string_view prefix = s.substr(slash + 1);
  if (prefix.empty() || prefix.size() > 3) return false;
  bool v6 = addr.find(':') != std::string::npos;
  auto bits = parse_uint(prefix, v6 ? 128 : 32);
  if (!bits) return false;
  unsigned char buf[16];
  return ::inet_pton(v6 ? AF_INET6 : AF_INET, addr.c_str(), buf) == 1;
}

std::optional<std::uint64_t> parse_uint(std::string_view s, std::uint64_t hi, int base) {
  if (s.empty() || s.size() > 64) return std::nullopt;
  for (char c : s) {
    bool digit = (c >= '0' && c <= '9') ||
                 (base == 16 && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')));
    if (!digit) return std::nullopt;
  }
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || end != s.data() + s.size() || v > hi) return std::nullopt;
  return v;
}

std::optional<std::uint64_t> parse_sysfs_uint(std::string_view s, std::uint64_t hi, int base) {
  auto first = s.find_first_not_of(" \t\n");
  if (first == std::string_view::npos) return std::nullopt;
  s = s.substr(first, s.find_last_not_of(" \t\n") + 1 - first);
  if (base == 16 && s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  return parse_uint(s, hi, base);
}

}  // namespace ibsm::agent
