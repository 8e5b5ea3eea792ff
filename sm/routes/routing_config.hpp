// The routing engines' settings from opensm.conf: the files they read (root, CN, I/O,
// ignore and id GUID lists, torus-2QoS.conf, LFT and LID-matrix dumps) and their flags,
// gathered into one routing::EngineConfig. Files are read on every heavy sweep, as
// OpenSM does, so an edited file applies at the next one; engines get the text and
// report errors with the path and line.
#pragma once

#include <string>
#include <vector>

#include "common/error.hpp"
#include "conf/options.hpp"
#include "routing/engine.hpp"

namespace ibsm::sm {

struct EngineSettings {
  routing::EngineConfig config;
  std::vector<Error> warnings;  // unreadable files, bad lines: logged, never fatal
};

// `chain` is the engine list from -R: a file only some engine reads (torus_config for
// torus-2QoS, lfts_file and lid_matrix_dump_file for file) is read only when that
// engine is in it. `max_vls` is what the fabric's links run (sm/tables/sl2vl_plan.hpp).
EngineSettings make_engine_settings(const conf::Options& options,
                                    const std::vector<std::string>& chain, unsigned max_vls);

}  // namespace ibsm::sm
