// The cabling check (issue 35, items 4 and 5), report only: topo_config_file read at
// start and on SIGHUP, and at each heavy sweep that brings the subnet up the fabric
// compared with it (cabling::compare_topology) and its links checked for a width or
// speed below what both ends support (cabling::find_degraded_links, file or not).
// Takes the Fabric and the file's path; never the SubnetManager. SM thread only; what
// it returns is immutable and shared with the OpsSnapshot.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "cabling/topology.hpp"
#include "common/log.hpp"
#include "common/result.hpp"
#include "ops/ops_snapshot.hpp"
#include "sm/fabric/fabric.hpp"

namespace ibsm::sm::cabling_check {

class CablingCheck {
 public:
  explicit CablingCheck(Logger log);

  // Reads the intended topology at `path` (topo_config_file; "" drops the file in
  // force, and with it the deviations). A file that cannot be read or parsed is logged
  // with its ID and file:line and returned; the last good file stays in force (none at
  // start). The lists of the last check stay until the next one.
  Status load(const std::string& path);

  // The deviations of `fabric` from the file in force (none without one) and its
  // degraded links; `now` stamps the result. About 20 ms on 5832 hosts.
  ops::CablingStatusPtr check(const Fabric& fabric, std::chrono::system_clock::time_point now);

  // The file's state and the last check's lists; never null.
  const ops::CablingStatusPtr& status() const { return status_; }

 private:
  Logger log_;
  std::shared_ptr<const cabling::IntendedTopology> intended_;  // the last good file
  ops::CablingStatusPtr status_;
};

// "wrong_port=2,width_mismatch=1": the kinds of `list` with their counts, in kind order
// (the topology_deviation event, the log).
std::string kinds_summary(const std::vector<cabling::Deviation>& list);

}  // namespace ibsm::sm::cabling_check
