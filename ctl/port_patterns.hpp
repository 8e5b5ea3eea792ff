// dump_portguid's patterns, matched against NodeDescriptions with RE2: time linear in
// the text, memory bounded when compiled, so a pattern such as `(a+)+$` costs what `a+$`
// costs (std::regex, which backtracks, took exponential time on it). The syntax is
// POSIX extended, as OpenSM's console (regcomp REG_EXTENDED) and ibsm before RE2 took
// it, with RE2's limits: no back-references (ERE has none), no collating elements or
// equivalence classes ([[.a.]], [[=a=]]), counted repetition up to 1000. RE2 also takes
// Perl's \d \w \s \b. A pattern RE2 refuses, or one over kMaxPatternBytes, is refused
// with IBSM-8022 naming it and the reason; nothing is matched.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace re2 {
class RE2;
}

namespace ibsm::ctl {

inline constexpr std::size_t kMaxPatternBytes = 256;
// The memory RE2 may use for all the patterns of one request together (compiled
// programs and their DFA caches), split evenly between them.
inline constexpr std::int64_t kPatternMemory = 8 << 20;
// The time one request may spend matching (a CPU bound; RE2 makes it hard to reach:
// 64 patterns over 40 000 descriptions take milliseconds).
inline constexpr std::chrono::milliseconds kPatternTime{1000};

class DescriptionPatterns {
 public:
  static Result<DescriptionPatterns> compile(const std::vector<std::string>& patterns);
  DescriptionPatterns(DescriptionPatterns&&) noexcept;
  DescriptionPatterns& operator=(DescriptionPatterns&&) noexcept;
  ~DescriptionPatterns();

  // True if one of the patterns matches somewhere in `text` (search, not full match).
  bool matches(std::string_view text) const;

 private:
  DescriptionPatterns() = default;
  std::vector<std::unique_ptr<re2::RE2>> res_;
};

}  // namespace ibsm::ctl
