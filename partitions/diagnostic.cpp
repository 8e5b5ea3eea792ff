#include "partitions/diagnostic.hpp"

#include <algorithm>

namespace ibsm::partitions {

std::string format_diagnostic(const Diagnostic& d, const std::string& file) {
  std::string out = file;
  if (d.line > 0) {
    out += ":" + std::to_string(d.line);
    if (d.column > 0) out += ":" + std::to_string(d.column);
  }
  out += d.severity == Severity::kError ? ": error " : ": warning ";
  out += format_error_id(d.id) + ": " + d.message;
  if (!d.expected.empty()) out += "; expected " + d.expected;
  return out;
}

bool has_errors(const std::vector<Diagnostic>& diags) {
  return std::any_of(diags.begin(), diags.end(),
                     [](const Diagnostic& d) { return d.severity == Severity::kError; });
}

}  // namespace ibsm::partitions
