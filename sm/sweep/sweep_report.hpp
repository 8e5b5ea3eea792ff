// What went wrong during a sweep, for the log and for deciding that the next
// sweep must be heavy (OpenSM's subnet_initialization_error, made explicit).
#pragma once

#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/log.hpp"
#include "mad/smp_client.hpp"
#include "sm/errors.hpp"

namespace ibsm::sm {

struct SweepReport {
  std::vector<Error> problems;
  void add(ErrorId id, std::string message) { problems.push_back(Error{id, std::move(message)}); }
  bool clean() const { return problems.empty(); }
};

// An SMP that failed: "<what>: <request>: <why>" logged as a warning with `id`, and
// added to `report` unless it is null (work between sweeps has none).
void report_failure(const Logger& log, SweepReport* report, ErrorId id, const mad::SmpOutcome& o,
                    const std::string& what);

}  // namespace ibsm::sm
