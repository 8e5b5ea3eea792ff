// The live status page served at / (docs/metrics.md): the SM's state and role, a
// fabric summary, the ports with errors (PerfMgr), the topology picture
// (topology_svg.hpp), and the unhealthy ports, cabling deviations and degraded links
// (fabric_health_html.hpp). Plain HTML with inline CSS and one small inline script that
// reloads the page's content every kRefreshSeconds: nothing is fetched from
// anywhere but this endpoint.
//
// The parts that cost something on a big fabric (the layout, the SVG and the error
// table) depend only on the fabric and counter snapshots and are made once per pair,
// off the request path (precomputed.hpp); the SM and fabric summaries are made per
// request from the snapshot at hand (a pass over the ports).
#pragma once

#include <memory>
#include <string>

#include "metrics/port_errors.hpp"
#include "ops/ops_snapshot.hpp"

namespace ibsm::metrics {

inline constexpr int kRefreshSeconds = 10;
inline constexpr std::size_t kMaxErrorRows = 100;

struct StatusParts {
  // What they were made from, compared by identity. The fabric is not kept alive:
  // on big fabrics the SM lets go of its snapshot before it builds the next one.
  const sa::Snapshot* fabric = nullptr;
  std::uint64_t fabric_generation = 0;
  perfmgr::CounterSnapshotPtr counters;
  std::string fabric_html;  // the fabric summary, for while the SM has none published
  std::string errors_html;  // the ports with errors
  std::string svg;          // the topology
};

// Whether `parts` were made from the snapshot's fabric and counters.
bool parts_match(const StatusParts& parts, const ops::OpsSnapshot& s);

// `before`: the error totals of the PerfMgr sweep before s.perf_counters (null:
// none), for error rates.
std::shared_ptr<const StatusParts> status_parts(const ops::OpsSnapshot& s,
                                                const ErrorTotals* before);

// The whole page; `parts` may be null before the first fabric snapshot.
std::string status_page(const ops::OpsSnapshot& s, const StatusParts* parts);

}  // namespace ibsm::metrics
