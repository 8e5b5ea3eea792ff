// What went wrong during a sweep, for the log and for deciding that the next
// sweep must be heavy (OpenSM's subnet_initialization_error, made explicit), and
// what fabric health (sm/health/health_monitor.hpp) counts per port.
#pragma once

#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/log.hpp"
#include "mad/smp_client.hpp"
#include "sm/errors.hpp"
#include "sm/health/health_types.hpp"

namespace ibsm::sm {

struct SweepReport {
  std::vector<Error> problems;
  // Fabric health's inputs, no problems of the sweep (clean() ignores them):
  // ports a Set to which (PortInfo, SwitchInfo, VLArb, SL2VL, P_Key, LFT) was answered
  // with an error status or not at all (seterr; a switch's tables count at port 0),
  std::vector<health::PortKey> failed_sets;
  // and one entry per answer with impossible values (illegal), charged to the port it
  // describes, or for a NodeInfo to the switch port it was probed through.
  std::vector<health::PortKey> illegal_answers;

  void add(ErrorId id, std::string message) { problems.push_back(Error{id, std::move(message)}); }
  bool clean() const { return problems.empty(); }
  void set_failed(mad::Guid node_guid, mad::PortNum port) {
    failed_sets.push_back({node_guid, port});
  }
  void illegal(mad::Guid node_guid, mad::PortNum port) {
    illegal_answers.push_back({node_guid, port});
  }
};

// An SMP that failed: "<what>: <request>: <why>" logged as a warning with `id`, and
// added to `report` unless it is null (work between sweeps has none).
void report_failure(const Logger& log, SweepReport* report, ErrorId id, const mad::SmpOutcome& o,
                    const std::string& what);

}  // namespace ibsm::sm
