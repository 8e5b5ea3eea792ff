// The status page's fabric-health sections (issue 35), made per request from the
// snapshot at hand: the ports the health policy judges unhealthy (ops::HealthStatus),
// the cabling's deviations from topo_config_file and the degraded links
// (ops::CablingStatus). Every port is shown with both ends of its link; names and
// words are escaped by the one markup escaper (markup.hpp). At most kMaxHealthRows
// rows a table, then a count of those left out.
#pragma once

#include <cstddef>
#include <string>

#include "ops/ops_snapshot.hpp"

namespace ibsm::metrics {

inline constexpr std::size_t kMaxHealthRows = 100;

// <section id="health">: a summary line (unhealthy, isolated of at most, the policy
// file's state) and one row a port: <tr class="unhealthy ACTION" data-node data-port>.
std::string health_section(const ops::OpsSnapshot& s);

// <section id="cabling"> (the deviations, or why there are none to show) and
// <section id="degraded">: one row a deviation, <tr class="deviation KIND" data-node
// data-port> (the local end).
std::string cabling_sections(const ops::OpsSnapshot& s);

}  // namespace ibsm::metrics
