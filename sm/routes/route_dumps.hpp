// The dump files of a sweep that brought the subnet up (dump_files_dir), as OpenSM
// writes them: opensm-subnet.lst always; with routing logging (log_flags 0x40)
// opensm-lfts.dump (ibroute's format, so both SMs' tables can be diffed) and
// opensm-lid-matrix.dump (the input of `-R file -M`). Failures are logged, never fatal.
#pragma once

#include "common/log.hpp"
#include "conf/options.hpp"
#include "routing/engine.hpp"
#include "sm/fabric/fabric.hpp"

namespace ibsm::sm::routes {

void write_dumps(const Fabric& fabric, const routing::Topology& topology,
                 const routing::Routes& routes, const conf::Options& options, const Logger& log);

}  // namespace ibsm::sm::routes
