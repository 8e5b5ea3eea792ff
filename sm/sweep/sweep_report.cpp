#include "sm/sweep/sweep_report.hpp"

namespace ibsm::sm {

void report_failure(const Logger& log, SweepReport* report, ErrorId id, const mad::SmpOutcome& o,
                    const std::string& what) {
  std::string msg = what + ": " + o.request.describe();
  if (o.failure != nullptr) msg += ": " + o.failure->detail;
  log->warn("{}: {}", format_error_id(id), msg);
  if (report != nullptr) report->add(id, std::move(msg));
}

}  // namespace ibsm::sm
