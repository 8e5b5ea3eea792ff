// The Prometheus text exposition (format 0.0.4) of one OpsSnapshot: the PerfMgr's
// port counters under the infiniband-exporter's names and labels, so that its
// Grafana dashboards work unchanged, and the SM's own `ibsm_*` metrics. A pure
// function of the snapshot: the HTTP threads call it on what the SM published.
#pragma once

#include <string>
#include <string_view>

#include "sm/ops/ops_snapshot.hpp"

namespace ibsm::metrics {

std::string render(const sm::ops::OpsSnapshot& s);

// A label value escaped as the format requires (backslash, double quote, newline).
std::string escape_label(std::string_view v);

}  // namespace ibsm::metrics
