// The "file" engine (OpenSM's -R file): forwarding tables loaded from lfts_file (-U, an
// opensm-lfts.dump or ibroute output), or min-hop routes over the hop tables of
// lid_matrix_dump_file (-M) when only that is given.
//
// Unlike OpenSM, which loads whatever part of a dump matches and leaves the rest to
// chance, the engine refuses a dump that does not fit the fabric (a switch without a
// block, an entry on a missing or down port, a dump of another fabric), so the SM falls
// back loudly to the next engine of the chain. Blocks of switches the fabric does not
// have are skipped with a warning, as OpenSM skips them: a removed switch should not stop
// the rest of the fabric from getting its planned routes. With both files set, the LID
// matrix must load too (OpenSM fails the engine when it does not), but the LFTs are used.
// Nothing here proves the loaded routes free of credit loops: deadlock_free() is false.
#pragma once

#include <memory>

#include "routing/engine.hpp"

namespace ibsm::routing {

std::unique_ptr<Engine> make_file_engine(const EngineConfig& config);

}  // namespace ibsm::routing
