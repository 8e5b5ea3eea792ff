// How many VLs a link may run under QoS: qos_*_max_vls caps PortInfo.OperationalVLs
// (IBA 14.2.5.6) on top of max_op_vls and the VLCap of both ends. Both ends of a link
// take the smaller cap of their two classes, so they run the same VLs.
//
// OpenSM 3.3.23 reads qos_*_max_vls but programs OperationalVLs from max_op_vls alone
// (osm_link_mgr.c, osm_port.c osm_physp_calc_link_op_vls); only torus-2QoS looks at it.
// ibsm applies it: a key that is accepted and does nothing would mislead. Its default,
// 15, caps nothing, so a configuration that leaves it alone runs as under OpenSM.
#pragma once

#include <cstdint>

#include "sm/fabric/fabric.hpp"
#include "sm/qos/qos_config.hpp"

namespace ibsm::sm::qos {

// The OperationalVLs code (1-5) QoS allows on (node, port): 5 when `qos` is null or
// disabled; a switch's port 0 (no link) by its own class only.
std::uint8_t max_op_vls_of_link(const QosConfig* qos, const Fabric& f, NodeIndex node,
                                PortNum port);

// The OperationalVLs code the SM programs on (node, port) (sm/links/link_rules.hpp
// operational_vls: both VLCaps, max_op_vls, and the QoS cap above): what the port runs
// after this sweep's PortInfo Sets, which may not be what it reports yet. A switch's
// port 0 by its own VLCap.
std::uint8_t port_operational_vls(const QosConfig* qos, const Fabric& f, NodeIndex node,
                                  PortNum port, std::uint8_t max_op_vls);

// The smallest such cap over all classes that carry routed traffic (CA, router and switch
// external ports): what every path can count on (usable_vls for dfsssp and friends).
std::uint8_t max_op_vls_of_fabric(const QosConfig* qos);

}  // namespace ibsm::sm::qos
