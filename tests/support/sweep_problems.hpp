// A sweep's problems as an operator reads them, one "IBSM-NNNN message" line each: the
// failure text of a test that expects a clean sweep. Header-only, for targets that link sm.
#pragma once

#include <string>

#include "common/error.hpp"
#include "sm/subnet_manager.hpp"

namespace ibsm::testsupport {

inline std::string problems(const sm::SweepResult& r) {
  std::string s;
  for (const auto& e : r.report.problems)
    s += format_error_id(e.id) + " " + e.message + "\n";
  return s;
}

}  // namespace ibsm::testsupport
