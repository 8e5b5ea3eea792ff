// The Prometheus text exposition (format 0.0.4) of one OpsSnapshot: the PerfMgr's
// port counters under the infiniband-exporter's names and labels, so that its
// Grafana dashboards work unchanged, and the SM's own `ibsm_*` metrics. A pure
// function of the snapshot: the HTTP threads call it on what the SM published.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ops/ops_snapshot.hpp"

namespace ibsm::metrics {

std::string render(const ops::OpsSnapshot& s);

// The same text in parts (the SM's metrics, then one part per port-counter family),
// so that the endpoint streams a big fabric's exposition without holding all of it:
// concatenating part(0) .. part(parts() - 1) gives render().
class Exposition {
 public:
  explicit Exposition(std::shared_ptr<const ops::OpsSnapshot> s);
  std::size_t parts() const;
  std::string part(std::size_t i);

 private:
  std::shared_ptr<const ops::OpsSnapshot> s_;
  std::vector<std::string> labels_;  // per port of perf_counters, made on first use
};

// A label value escaped as the format requires (backslash, double quote, newline).
std::string escape_label(std::string_view v);

}  // namespace ibsm::metrics
