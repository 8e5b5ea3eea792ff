// Publishing, the last step of a heavy sweep and of every change worth showing: the
// operator seam's books and the OpsSnapshot (OpsSeam), the SA's snapshots and the prefix
// routes they carry (SaPublisher), the PerfMgr's published counters (PerfCounterCopy).
// One member of the SubnetManager; each part keeps its own state.
#pragma once

#include <utility>

#include "common/log.hpp"
#include "sm/publish/ops_seam.hpp"
#include "sm/publish/perf_counters.hpp"
#include "sm/publish/sa_publisher.hpp"

namespace ibsm::sm::publish {

struct Publishing {
  explicit Publishing(Logger log) : sa(std::move(log)) {}
  OpsSeam ops;
  SaPublisher sa;
  PerfCounterCopy perf;
};

}  // namespace ibsm::sm::publish
