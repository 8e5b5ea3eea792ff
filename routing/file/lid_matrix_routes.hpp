// Min-hop routing over a loaded LID matrix: `opensm -R file -M <matrix>` without -U, where
// OpenSM's default LFT builder (osm_ucast_mgr.c) routes over the hop tables of the file
// instead of the ones it would compute.
#pragma once

#include <string_view>

#include "common/result.hpp"
#include "routing/engine.hpp"
#include "routing/file/lid_matrix_reader.hpp"

namespace ibsm::routing {

// Every switch sends each LID through one of the ports the matrix lists with the least
// hops to the destination's switch, the one that carries the fewest LIDs so far (as
// OpenSM's minhop balances with per-port path counts); LIDs in ascending order. Switch
// LIDs are routed but not counted unless `count_switch_lids` (port_profile_switch_nodes),
// as in osm_ucast_mgr.c.
//
// The matrix must fit the fabric: a block for every switch (blocks of unknown switches
// are skipped with a kErrLidMatrixSkipped warning, as OpenSM skips them), finite hops only
// through ports linked to switches (column 0 holds OpenSM's least-hops cache and is
// ignored), every minimal port leading to a switch strictly closer to the destination (so the
// routes are loop free), and hops to every switch the topology connects. Otherwise
// kErrLidMatrixMismatch naming `path`.
Result<Routes> routes_from_lid_matrix(const Topology& topo, const LidMatrix& matrix,
                                      std::string_view path, bool count_switch_lids = false);

}  // namespace ibsm::routing
