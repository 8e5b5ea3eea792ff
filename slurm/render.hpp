// The tree of slurm/topology.hpp as Slurm's topology.conf (topology/tree) and as JSON.
//
// topology.conf: a comment header (hosts, leaves, switches, the top, how the hosts were
// picked), one `SwitchName=<leaf> Nodes=<hostlist>` line per leaf, then
// `SwitchName=<x> Switches=<hostlist of switch names>` lines level by level, the top
// last; the hosts left out follow as comments (at most kMaxSkippedLines, then a
// count). No time stamp: the same fabric gives the same bytes, so the file ibsm
// rewrites changes only when the fabric does. A fabric without hosts gives the header
// alone (Slurm refuses a topology.conf without switches).
//
// JSON (compact): {"top": name|null, "virtual_top": bool, "hosts": N, "excluded": N,
//   "switches": [{"name", "guid": "0x..."|null, "level", "parent": name|null,
//                 "nodes": [host...] | "switches": [name...]}...],
//   "skipped": [{"name", "guid", "port", "reason"}...]}
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "slurm/topology.hpp"

namespace ibsm::slurm {

inline constexpr std::size_t kMaxSkippedLines = 100;

// `how` is one line for the header ("rail 0 of each host", "every port of each host").
std::string topology_conf(const Topology& t, std::string_view how);
std::string topology_json(const Topology& t);

// The header's "how" for `o`.
std::string describe(const Options& o);

}  // namespace ibsm::slurm
