#include "tests/support/fabric.hpp"

namespace ibsm::testsupport {

std::optional<std::uint32_t> Fabric::find(const std::string& id) const {
  for (std::uint32_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].id == id) return i;
  return std::nullopt;
}

std::optional<PortRef> Fabric::peer(PortRef p) const {
  for (const Cable& c : cables) {
    if (c.a == p) return c.b;
    if (c.b == p) return c.a;
  }
  return std::nullopt;
}

void assign_ibsim_guids(Fabric& fabric) {
  std::uint64_t next_switch = kIbsimFirstSwitchGuid;
  std::uint64_t next_ca = kIbsimFirstCaGuid;
  for (Node& n : fabric.nodes) {
    if (n.type == NodeType::kSwitch) {
      n.node_guid = next_switch++;
    } else {
      n.node_guid = next_ca;
      next_ca += n.num_ports + 1U;
    }
    n.system_guid = n.node_guid;
  }
}

std::size_t remove_cables_between(Fabric& fabric, const std::string& a, const std::string& b) {
  const auto x = fabric.find(a);
  const auto y = fabric.find(b);
  if (!x || !y) return 0;
  return std::erase_if(fabric.cables, [&](const Cable& c) {
    return (c.a.node == *x && c.b.node == *y) || (c.a.node == *y && c.b.node == *x);
  });
}

}  // namespace ibsm::testsupport
