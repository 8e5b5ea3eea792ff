// SL2VL for routing engines that spread paths over SLs (dfsssp, torus-2QoS): how many VLs the
// engine may use, and which SLtoVLMappingTable (IBA 14.2.5.8) every port must hold so
// that SL i travels on VL i wherever the path goes. Pure: a Fabric in, numbers and
// tables out; the SM sends the Gets and Sets (sm/tables/ SwitchTables::program_sl2vl).
//
// Why identity: dfsssp puts every path in one acyclic virtual layer and hands out the
// layer's SL (routing/virtual_layers.hpp). The layers are deadlock free only if packets
// of different layers never share a VL's buffers on any link, i.e. every port maps SL
// i to VL i. OpenSM leaves this to its QoS setup (qos TRUE with the default qos_sl2vl
// "0,1,...,14,7", osm_qos.c), masked to each port's OperationalVLs.
//
// Engines whose VL depends on the hop (torus-2QoS: output port's dimension, turn, QoS bit)
// hand their own per-port tables (routing::Routes::sl2vl); those replace the identity on
// the ports they cover (EngineSl2Vl below), as OpenSM's update_sl2vl routing hook does.
//
// With QoS (opensm.conf qos, sm/qos/): the tables come from the port class's qos_*sl2vl
// (OpenSM's default is the identity above), engine tables still replace them on the ports
// they cover (OpenSM: osm_qos.c runs the engine's update_sl2vl hook on the QoS table),
// the VLs are those qos_*max_vls allows (sm/qos/link_vls.hpp), and on switches that
// advertise OptimizedSLtoVLMappingProgramming with use_optimized_slvl one table per
// output port covers all its input ports (Sl2VlWant::all_inputs), unless the engine has
// tables of its own (they differ by input port).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "mad/attr/vl_tables.hpp"
#include "routing/engine.hpp"
#include "sm/fabric/fabric.hpp"
#include "sm/qos/qos_config.hpp"

namespace ibsm::sm {

// Data VLs a PortInfo.OperationalVLs code stands for (IBA 14.2.5.6 table 156):
// 1 -> VL0, 2 -> VL0-1, 3 -> VL0-3, 4 -> VL0-7, 5 -> VL0-14; anything else counts as 1.
unsigned decode_operational_vls(std::uint8_t code);

// The OperationalVLs code (1..5) the SM negotiates for a port facing `peer`
// (sm/links/link_rules.hpp operational_vls): what the port runs after this sweep's
// programming, which may not be what it reports yet.
std::uint8_t negotiated_operational_vls(const Port& port, const Port& peer,
                                        std::uint8_t max_op_vls);

// The VLs every path can use: the smallest negotiated OperationalVLs over the up links
// of switches (inter-switch and switch-to-end-port), decoded, at most 15 (VL15 is
// management) and at least 1. OpenSM's get_avail_vl_in_subn (osm_ucast_dfsssp.c) takes
// the same minimum over every switch port with a peer; ports between two end ports
// carry no routed traffic and do not count.
unsigned usable_vls(const Fabric& f, std::uint8_t max_op_vls);

// The table for a port running `oper_vls_code`: OpenSM's default qos_sl2vl
// (SL i -> VL i for SL 0-14, SL 15 -> VL 7) with each VL masked by the port's VL
// count - 1 (osm_qos.c sl2vl_update_table: vl &= (1 << (OpVLs - 1)) - 1). With 8 VLs
// SL 0-7 map to VL 0-7, SL 8-14 to VL 0-6, SL 15 to VL 7; with 1 VL all to VL 0.
// dfsssp hands out SLs below usable_vls() only, which this maps one to one.
mad::SlToVlTable identity_sl2vl(std::uint8_t oper_vls_code);

// One table a port must hold. For a switch: output port `out`, input port `in`
// (attribute modifier in << 8 | out); for a CA or router port: in = 0, out = its port.
struct Sl2VlWant {
  NodeIndex node = kNoNode;
  PortNum out = 0;
  PortNum in = 0;
  mad::SlToVlTable table;
  // One Set for every input port of `out` (mad::sl2vl_all_inputs_attr_mod; `in` is 0):
  // it stands for the tables (i, out) of every i in sl2vl_inputs(f, node, out).
  bool all_inputs = false;
};

// The input ports whose (in, out) tables of switch `node` carry traffic: port 0 and every
// up port with a peer, except `out` itself (a packet never leaves where it came in; port 0
// may be both). The pairs sl2vl_wants() lists.
std::vector<PortNum> sl2vl_inputs(const Fabric& f, NodeIndex node, PortNum out);

// Every table the fabric's ports must hold for per-path SLs. Switches: the (in, out)
// pairs whose output port is up with a peer (port 0 only on an enhanced port 0) and
// whose input is port 0 or an up port (traffic enters nowhere else), as
// tables_of() in sm/tables/port_tables.hpp; the table follows the output port's VLs. End
// ports: their own table, for what they send. Only devices whose IsSLMappingSupported
// is set (a switch's port 0 speaks for all its ports). 2 up links per switch port:
// about P^2 tables per P-port switch, as OpenSM's non-optimized QoS setup sends.
std::vector<Sl2VlWant> sl2vl_wants(const Fabric& f, std::uint8_t max_op_vls);

// The tables an engine computed itself (routing::Routes::sl2vl, torus-2QoS: the VL of a hop
// follows the output port's dimension and the turn, not only the SL), keyed by GUID so
// they apply to the fabric being programmed whatever its node numbering.
struct EngineSl2Vl {
  using Table = routing::Routes::Sl2Vl::Table;
  struct SwitchTables {
    unsigned ports = 0;         // num_ports + 1: row length of `tables`
    std::vector<Table> tables;  // [in * ports + out]
  };
  std::unordered_map<Guid, SwitchTables> switches;  // by node GUID
  std::unordered_map<Guid, Table> end_ports;        // by port GUID
  bool empty() const { return switches.empty() && end_ports.empty(); }
};

// Indexes an engine's tables by the GUIDs of the topology they were computed on.
EngineSl2Vl engine_sl2vl(const routing::Topology& topo, const routing::Routes::Sl2Vl& tables);

// An engine's table on a port running `oper_vls_code`, each VL masked to the port's VL
// count as identity_sl2vl masks (a 4-VL port drops torus-2QoS's QoS bit, VL bit 2).
mad::SlToVlTable masked_sl2vl(const EngineSl2Vl::Table& table, std::uint8_t oper_vls_code);

// As above, but every port the engine has a table for gets that table (masked) instead of
// the identity; ports it has none for keep the identity.
std::vector<Sl2VlWant> sl2vl_wants(const Fabric& f, std::uint8_t max_op_vls,
                                   const EngineSl2Vl& engine);

// As above with QoS: when `qos` is enabled every port's table is its class's qos_*sl2vl
// (a switch's tables by output port: port 0's class for output 0, the external ports'
// class for the rest; OpenSM writes the external ports' table into (in, 0) for in > 0),
// masked to the port's VLs with VL 15 kept (qos::masked_class_sl2vl); engine tables
// replace them where they exist; optimized switches get all_inputs wants. Null or
// disabled `qos`: the identity wants above.
std::vector<Sl2VlWant> sl2vl_wants(const Fabric& f, std::uint8_t max_op_vls,
                                   const EngineSl2Vl& engine, const qos::QosConfig* qos);

}  // namespace ibsm::sm
