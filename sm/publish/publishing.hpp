// Publishing, the last step of a heavy sweep and of every change worth showing: the
// operator seam's books and the OpsSnapshot (OpsSeam), the SA's snapshots and the prefix
// routes they carry (SaPublisher), the PerfMgr's published counters (PerfCounterCopy),
// the cabling check whose result the OpsSnapshot carries (sm/cabling_check/), Slurm's
// topology file (slurm_topology_file), the health monitor (sm/health/). One member of
// the SubnetManager; each part keeps
// its own state.
#pragma once

#include "common/clock.hpp"
#include "common/log.hpp"
#include "common/log_modules.hpp"
#include "sm/cabling_check/cabling_check.hpp"
#include "sm/health/health_monitor.hpp"
#include "sm/publish/ops_seam.hpp"
#include "sm/publish/perf_counters.hpp"
#include "sm/publish/sa_publisher.hpp"
#include "sm/publish/slurm_topology_file.hpp"

namespace ibsm::sm::publish {

struct Publishing {
  Publishing(Logger log, const Clock& clock)
      : sa(log),
        cabling(module_logger(log, LogModule::kDiscovery)),
        slurm(log),
        health(log, clock) {}
  OpsSeam ops;
  SaPublisher sa;
  PerfCounterCopy perf;
  cabling_check::CablingCheck cabling;  // topo_config_file, the check after SUBNET UP
  SlurmTopologyFile slurm;              // slurm_topology_file, after SUBNET UP
  health::HealthMonitor health;         // hm_* keys: the judge fed, its actions carried out
};

}  // namespace ibsm::sm::publish
