// The snapshot as QoS policy port groups see it (qos_view.hpp).
#include "sa/qos_view.hpp"

#include "sa/path_resolver.hpp"

namespace ibsm::sa {

qos_policy::FabricView qos_fabric_view(const Snapshot& snap, const PathTables& t) {
  qos_policy::FabricView view;
  view.ports.resize(t.ports.size());
  for (std::size_t fp = 0; fp < t.ports.size(); ++fp) {
    const PathTables::Port& tp = t.ports[fp];
    if (!tp.holder) continue;
    const SnapNode& n = snap.nodes[tp.node];
    qos_policy::FabricPort& p = view.ports[fp];
    p.guid = tp.guid;
    p.node_type = n.is_switch()                                ? qos_policy::kTypeSwitch
                  : n.info.node_type == mad::NodeType::kRouter ? qos_policy::kTypeRouter
                                                               : qos_policy::kTypeCa;
    p.node_desc = n.description;
    // port-name "switch/P3" names the switch: in OpenSM its ports share its port GUID.
    if (n.is_switch()) {
      for (unsigned k = 0; k <= n.info.num_ports; ++k)
        p.port_nums.push_back(static_cast<std::uint8_t>(k));
    } else {
      p.port_nums.push_back(tp.num);
    }
    p.is_sm_port =
        snap.sm_port.valid() && snap.sm_port.node == tp.node && snap.sm_port.port == tp.num;
  }
  return view;
}

}  // namespace ibsm::sa
