// What went wrong during a sweep, for the log and for deciding that the next
// sweep must be heavy (OpenSM's subnet_initialization_error, made explicit).
#pragma once

#include <string>
#include <vector>

#include "common/error.hpp"
#include "sm/errors.hpp"

namespace ibsm::sm {

struct SweepReport {
  std::vector<Error> problems;
  void add(ErrorId id, std::string message) { problems.push_back(Error{id, std::move(message)}); }
  bool clean() const { return problems.empty(); }
};

}  // namespace ibsm::sm
