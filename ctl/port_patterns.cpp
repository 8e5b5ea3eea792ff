#include "ctl/port_patterns.hpp"

#include <re2/re2.h>

#include <algorithm>

#include <spdlog/fmt/fmt.h>

#include "ctl/errors.hpp"

namespace ibsm::ctl {

namespace {

// POSIX bracket expressions hold collating elements ([.a.]) and equivalence classes
// ([=a=]), which RE2 does not know: it would read "[[.a.]]" as a class of '[', '.' and
// 'a' followed by ']', a different pattern. Such a pattern is refused, not misread.
// Character classes ([:digit:]) RE2 knows.
bool has_collating_syntax(std::string_view p) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '\\') {
      ++i;
      continue;
    }
    if (p[i] != '[') continue;
    std::size_t j = i + 1;  // inside a bracket expression
    if (j < p.size() && p[j] == '^') ++j;
    if (j < p.size() && p[j] == ']') ++j;  // a leading ']' is a member
    for (; j < p.size() && p[j] != ']'; ++j) {
      if (p[j] != '[' || j + 1 >= p.size()) continue;
      if (p[j + 1] == '.' || p[j + 1] == '=') return true;
      if (p[j + 1] == ':') {  // [:class:] ends at ":]"
        const auto end = p.find(":]", j + 2);
        if (end == std::string_view::npos) break;
        j = end + 1;
      }
    }
    i = j;
  }
  return false;
}

}  // namespace

DescriptionPatterns::DescriptionPatterns(DescriptionPatterns&&) noexcept = default;
DescriptionPatterns& DescriptionPatterns::operator=(DescriptionPatterns&&) noexcept = default;
DescriptionPatterns::~DescriptionPatterns() = default;

Result<DescriptionPatterns> DescriptionPatterns::compile(const std::vector<std::string>& patterns) {
  DescriptionPatterns out;
  if (patterns.empty()) return out;
  RE2::Options o;
  o.set_posix_syntax(true);    // POSIX extended, as regcomp(REG_EXTENDED)
  o.set_longest_match(false);  // only whether it matches counts
  o.set_one_line(true);        // ^ and $ at the ends of the description only
  o.set_perl_classes(true);
  o.set_word_boundary(true);
  o.set_never_capture(true);
  o.set_encoding(RE2::Options::EncodingLatin1);  // a byte is a character, as in the wire text
  o.set_log_errors(false);                       // refusals are the caller's answer, not stderr
  o.set_max_mem(std::max<std::int64_t>(kPatternMemory / static_cast<std::int64_t>(patterns.size()),
                                       64 * 1024));
  for (const std::string& p : patterns) {
    if (p.size() > kMaxPatternBytes)
      return fail(kErrPattern, fmt::format("regular expression '{}...' is {} bytes; at most {}",
                                           p.substr(0, 32), p.size(), kMaxPatternBytes));
    if (has_collating_syntax(p))
      return fail(kErrPattern, fmt::format("Cannot use regular expression '{}': collating "
                                           "elements [. .] and equivalence classes [= =] are not "
                                           "supported",
                                           p));
    auto re = std::make_unique<RE2>(p, o);
    if (!re->ok())
      return fail(kErrPattern,
                  fmt::format("Cannot use regular expression '{}': {}", p, re->error()));
    out.res_.push_back(std::move(re));
  }
  return out;
}

bool DescriptionPatterns::matches(std::string_view text) const {
  const re2::StringPiece piece(text.data(), text.size());
  return std::any_of(res_.begin(), res_.end(),
                     [&](const auto& re) { return RE2::PartialMatch(piece, *re); });
}

}  // namespace ibsm::ctl
