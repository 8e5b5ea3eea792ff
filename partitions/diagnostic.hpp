// A located message about a partitions.conf file: what went wrong, where
// (file:line:column) and what was expected there.
#pragma once

#include <string>
#include <vector>

#include "common/error.hpp"

namespace ibsm::partitions {

enum class Severity { kError, kWarning };

struct Diagnostic {
  Severity severity = Severity::kError;
  ErrorId id;
  int line = 0;    // 1-based; 0 when not tied to a place in the file
  int column = 0;  // 1-based byte column
  std::string message;
  std::string expected;  // what would have been valid here; may be empty
};

// "file:3:14: error IBSM-4001: <message>; expected <expected>"
std::string format_diagnostic(const Diagnostic& d, const std::string& file);

bool has_errors(const std::vector<Diagnostic>& diags);

}  // namespace ibsm::partitions
