// The SA snapshot as Slurm's topology input (ops/slurm_fabric.hpp).
#include "ops/slurm_fabric.hpp"

namespace ibsm::ops {

namespace {

std::string name_for(const names::NodeNameMap* names, const sa::SnapNode& n) {
  if (names != nullptr)
    if (const std::string* mapped = names->find(n.guid())) return *mapped;
  return names::printable_description(n.description);
}

}  // namespace

slurm::FabricInput slurm_fabric(const sa::Snapshot& fabric, const names::NodeNameMap* names) {
  slurm::FabricInput in;
  std::vector<std::uint32_t> switch_of(fabric.nodes.size(), slurm::kNoSwitch);
  for (std::uint32_t i = 0; i < fabric.nodes.size(); ++i) {
    const sa::SnapNode& n = fabric.nodes[i];
    if (!n.is_switch()) continue;
    switch_of[i] = static_cast<std::uint32_t>(in.switches.size());
    in.switches.push_back({n.guid(), name_for(names, n), {}});
  }
  for (std::uint32_t i = 0; i < fabric.nodes.size(); ++i) {
    const sa::SnapNode& n = fabric.nodes[i];
    if (n.info.node_type != mad::NodeType::kSwitch && n.info.node_type != mad::NodeType::kCa)
      continue;
    for (const sa::SnapPort& p : n.ports) {
      if (p.num == 0 || !p.present || !p.peer.valid() || p.peer.node >= fabric.nodes.size())
        continue;
      const std::uint32_t peer_switch = switch_of[p.peer.node];
      if (peer_switch == slurm::kNoSwitch) continue;  // a CA or router at the far end
      if (n.is_switch()) {
        in.switches[switch_of[i]].peers.push_back(peer_switch);
        continue;
      }
      in.host_ports.push_back({n.guid(), p.num, name_for(names, n),
                               names::printable_description(n.description), peer_switch,
                               p.peer.port});
    }
  }
  return in;
}

}  // namespace ibsm::ops
