// The operator seam of one SM: the published snapshot, the event bus and the
// queue of changing requests. The SubnetManager owns one and writes to it on its
// own thread; ibsm-ctl's server, the events file, the PerfMgr and the metrics
// endpoint read it from theirs (docs/architecture.md, "Operator seam").
#pragma once

#include "ops/control_queue.hpp"
#include "ops/event_bus.hpp"
#include "ops/ops_publisher.hpp"

namespace ibsm::ops {

struct Ops {
  OpsPublisher snapshot;
  EventBus events;
  ControlQueue control;
};

}  // namespace ibsm::ops
