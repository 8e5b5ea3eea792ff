// What the SM hands the PerfMgr (perfmgr/): its settings from the options, and after
// every heavy sweep an immutable view of the fabric it monitors.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "conf/options.hpp"
#include "perfmgr/fabric_view.hpp"
#include "perfmgr/perf_manager.hpp"
#include "sm/fabric.hpp"

namespace ibsm::sm {

// perfmgr_* keys, event_db_dump_file, and the MAD timing the SM uses
// (transaction_timeout, transaction_retries), as OpenSM's PerfMgr binds with them.
perfmgr::PerfSettings perf_settings(const conf::Options& o);

// Every switch and CA/router of `f` with its ports' LIDs (a switch's ports all answer
// at port 0's LID) and the node at the other end of each link. `name_of` names a node
// (node_name_map's NodeNameMap::name_of where the SM has one); unset: its
// NodeDescription.
using NodeNamer = std::function<std::string(Guid, std::string_view description)>;
perfmgr::FabricViewPtr perfmgr_view(const Fabric& f, const NodeNamer& name_of = {});

}  // namespace ibsm::sm
