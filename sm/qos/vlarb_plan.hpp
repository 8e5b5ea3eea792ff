// The VLArbitrationTable blocks (IBA 14.2.5.9) QoS wants every port to hold, from the
// port's class configuration (sm/qos/qos_config.hpp). Pure: a Fabric in, blocks out;
// the SM compares them with what the ports hold and Sets the ones that differ
// (sm/qos/vlarb_programmer.hpp).
//
// As OpenSM's osm_qos.c: every CA and router port, every switch external port that is
// up, and port 0 of a switch with enhanced port 0 (a base port 0 has no table); none on
// a port with one data VL (VLCap 1). Block 1 takes low-priority entries 0-31 and block 2
// entries 32 and on, blocks 3 and 4 the same of the high-priority list, each as long as
// VLArbitrationLowCap / HighCap allow (entries past the cap are sent as zeros). Every
// VL is masked to the port's OperationalVLs ((1 << (OpVLs - 1)) - 1), so a VL the port
// does not run becomes a lower one, as OpenSM does. (OpenSM sends block 2 or 4 of a
// port whose cap is exactly 64 with no entries, cap % 32; ibsm sends its 32 entries.)
#pragma once

#include <vector>

#include "mad/attr/vl_tables.hpp"
#include "sm/fabric/fabric.hpp"
#include "sm/qos/qos_config.hpp"

namespace ibsm::sm::qos {

struct VlArbWant {
  NodeIndex node = kNoNode;
  PortNum port = 0;      // the port whose table it is (a switch: output port, 0 if enhanced)
  unsigned block = 1;    // 1-4, the attribute modifier's block field
  unsigned entries = 0;  // entries the port holds in this block (the rest are not compared)
  mad::VlArbBlock table;
};

std::vector<VlArbWant> vlarb_wants(const Fabric& f, const QosConfig& qos, std::uint8_t max_op_vls);

// The blocks of one port, for a port of class `cfg` with VLArbitration caps `low_cap`,
// `high_cap` and VLCap `vl_cap`, running OperationalVLs `oper_vls_code` (for tests and
// for vlarb_wants).
std::vector<VlArbWant> port_vlarb_blocks(const ClassConfig& cfg, std::uint8_t vl_cap,
                                         std::uint8_t low_cap, std::uint8_t high_cap,
                                         std::uint8_t oper_vls_code);

}  // namespace ibsm::sm::qos
