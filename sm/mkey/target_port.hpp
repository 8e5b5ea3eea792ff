// Which port checks the M_Key of an SMP (IBA 14.2.4): the SMA of the node the SMP
// reaches checks it against a switch's port 0, or against the CA/router port the SMP
// entered by. The SM names that port from its fabric model to pick the key.
#pragma once

#include <optional>
#include <unordered_map>

#include "mad/smp.hpp"
#include "sm/fabric/fabric.hpp"
#include "sm/mkey/neighbors.hpp"

namespace ibsm::sm::mkey {

// The GUID of the port an SMP along `path` is checked against, walking the links of
// `f` from the SM's port; nullopt where the model does not reach. When only the last
// hop leads to a node not seen yet, `neighbors` (OpenSM's cache of the last runs)
// may still name the port behind it.
std::optional<Guid> dr_target_port(const Fabric& f, const mad::DrPath& path,
                                   const Neighbors* neighbors = nullptr);

// The GUID a port carries in the neighbors cache (a switch's ports: the switch's).
std::optional<Guid> cache_port_guid(const Fabric& f, NodeIndex node, PortNum port);

// LID -> GUID of the port holding it (every LID of its LMC range).
using LidIndex = std::unordered_map<Lid, Guid>;
LidIndex index_lids(const Fabric& f);

// The port for any target: a DR path in the fabric being discovered (`building`, may
// be null), else in the last one, else through the neighbors cache; a LID in `lids`
// (built from the last fabric).
std::optional<Guid> target_port(const mad::SmpTarget& t, const Fabric* building, const Fabric& last,
                                const LidIndex& lids, const Neighbors& neighbors);

}  // namespace ibsm::sm::mkey
