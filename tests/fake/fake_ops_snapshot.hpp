// An OpsSnapshot as the SM publishes it after sweeping a fabric with the PerfMgr on,
// made straight from a neutral description (tests/support) without running the SM:
// every cabled port Active (4x EDR), LIDs in node order, names from the
// NodeDescriptions, and one PerfMgr counter row per port it reads (every switch port,
// cabled or not, and every cabled CA port) with deterministic traffic. For the
// operator tools' unit tests and benchmarks at full size (metrics/: the exposition
// and the status page of kary-18-3-5832), where a heavy sweep of the fake fabric
// would take longer than what is measured.
#pragma once

#include <cstdint>
#include <memory>

#include "ops/ops_snapshot.hpp"
#include "tests/support/fabric.hpp"

namespace ibsm::fake {

std::shared_ptr<ops::OpsSnapshot> ops_snapshot_of(const testsupport::Fabric& fabric);

// The same snapshot's counters one PerfMgr sweep later (`seconds` on): traffic on
// every port, and `errors` added to PortRcvErrors of every `every`-th port.
perfmgr::CounterSnapshotPtr counters_later(const perfmgr::CounterSnapshot& before,
                                           std::uint64_t seconds, std::uint64_t errors,
                                           std::size_t every);

}  // namespace ibsm::fake
