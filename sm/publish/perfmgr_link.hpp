// What the SM hands the PerfMgr (perfmgr/): its settings from the options, and after
// every heavy sweep an immutable view of the fabric it monitors.
#pragma once

#include "conf/options.hpp"
#include "perfmgr/fabric_view.hpp"
#include "perfmgr/perf_manager.hpp"
#include "sm/fabric/fabric.hpp"

namespace ibsm::sm {

// perfmgr_* keys, event_db_dump_file, and the MAD timing the SM uses
// (transaction_timeout, transaction_retries), as OpenSM's PerfMgr binds with them.
perfmgr::PerfSettings perf_settings(const conf::Options& o);

// Every switch and CA/router of `f` with its ports' LIDs (a switch's ports all answer
// at port 0's LID) and the node at the other end of each link. Nodes go by the name
// the SM gives them everywhere (Node::display_name: node_name_map's, else the
// NodeDescription), so the PerfMgr's log lines and /metrics labels name them as the
// SM's logs and dumps do.
perfmgr::FabricViewPtr perfmgr_view(const Fabric& f);

}  // namespace ibsm::sm
