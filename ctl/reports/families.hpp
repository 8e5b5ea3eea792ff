// The read-only reports, one family to a file, each computed from one OpsSnapshot (and
// its fabric) on the caller's thread. answer_read_only (reports.cpp) picks one by
// command. Internal to ctl/reports/.
#pragma once

#include <cstddef>
#include <string>

#include "ctl/command.hpp"
#include "ctl/reports/report_kit.hpp"
#include "ops/event_bus.hpp"

namespace ibsm::ctl::reports {

// status.cpp: the SM's state, its counters and last sweeps; the events history.
Answer status(const OpsSnapshot& s, const ops::EventBus& events);
Answer events_history(const ops::EventBus& bus, std::size_t n);

// ports.cpp: one LID's port (querylid); port counts by state, width and speed, and
// the ports with possible issues (portstatus).
Answer querylid(const Snap& f, const NodeNamer& name_of, mad::Lid lid);
Answer portstatus(const Snap& f, const NodeNamer& name_of, const std::string& type);

// balance.cpp: end-port LIDs per inter-switch port (switchbalance); LIDs of one end
// port a switch forwards unevenly (lidbalance).
Answer switchbalance(const Snap& f, const NodeNamer& name_of, const Command& cmd);
Answer lidbalance(const Snap& f, const NodeNamer& name_of, const Command& cmd);

// routes.cpp: the route report, and one path traced hop by hop.
Answer routes(const OpsSnapshot& s, const Snap& f, const NodeNamer& name_of, const Command& cmd);

// partitions.cpp: the P_Keys per port and the last partitions.conf reload.
Answer partitions(const OpsSnapshot& s, const Snap* f, const NodeNamer& name_of);

// nodes.cpp: port GUIDs by NodeDescription pattern (dump_portguid); the node name map
// in force (node_names).
Answer dump_portguid(const Snap& f, const Command& cmd);
Answer node_names(const names::NodeNameMap* map);

// cabling.cpp: the deviations from topo_config_file (topo_diff; --json is
// cabling::deviations_json's array) and the degraded links (degraded), from the last
// heavy sweep's cabling check.
Answer topo_diff(const OpsSnapshot& s);
Answer degraded(const OpsSnapshot& s);

// health.cpp: the ports the health policy judges unhealthy, both ends named, with the
// policy file's state (health; --json is an array of one object a port, docs/ctl.md).
Answer health(const OpsSnapshot& s);
// topology.cpp: Slurm's topology.conf, or the same tree as JSON, from the last heavy
// sweep's fabric (slurm/topology.hpp), hosts filtered by RE2 patterns.
Answer topology(const OpsSnapshot& s, const Snap& f, const Command& cmd);

// config.cpp: the options in force as opensm.conf text, secrets redacted unless
// `sees_secrets` (is_secret_option and redact_secrets are there too).
Answer dump_conf(const OpsSnapshot& s, bool sees_secrets);

}  // namespace ibsm::ctl::reports
