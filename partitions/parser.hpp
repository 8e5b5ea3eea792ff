// partitions.conf text -> Config, reading every construct the way OpenSM 3.3.23 does
// (docs/partitions-grammar.md lists the rules and the few deliberate differences).
// Hard errors make the whole result unusable (ok() is false): the caller keeps its
// last good configuration instead of OpenSM's "everyone full member of 0x7fff".
// Soft problems are warnings, and the item is skipped as OpenSM skips it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "partitions/diagnostic.hpp"
#include "partitions/model.hpp"
#include "partitions/syntax.hpp"

namespace ibsm::partitions {

struct ParseResult {
  Config config;
  std::vector<Diagnostic> diagnostics;  // syntax and semantic, sorted by position
  bool ok() const { return !has_errors(diagnostics); }
};

ParseResult parse_partitions(std::string_view text);

// The semantic half, for callers that already hold the syntax tree (ibsm-part).
ParseResult analyze(const SyntaxTree& tree);

}  // namespace ibsm::partitions
