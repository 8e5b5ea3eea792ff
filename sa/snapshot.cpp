#include "sa/snapshot.hpp"

#include "sa/path_resolver.hpp"

namespace ibsm::sa {

void Snapshot::index() {
  by_lid.assign(static_cast<std::size_t>(mad::kMaxUnicastLid) + 1, PortRef{});
  by_port_guid.clear();
  by_node_guid.clear();
  by_port_guid.reserve(nodes.size() * 2);
  by_node_guid.reserve(nodes.size());
  for (std::uint32_t n = 0; n < nodes.size(); ++n) {
    SnapNode& node = nodes[n];
    node.index = n;
    by_node_guid.emplace(node.guid(), n);
    for (const SnapPort& p : node.ports) {
      if (!p.present) continue;
      const bool holder = node.is_switch() ? p.num == 0 : p.num != 0;
      if (!holder) continue;
      if (p.guid != 0) by_port_guid.emplace(p.guid, PortRef{n, p.num});
      if (p.lid == 0) continue;
      const std::size_t count = std::size_t{1} << p.lmc;
      for (std::size_t l = p.lid; l < p.lid + count && l < by_lid.size(); ++l)
        by_lid[l] = PortRef{n, p.num};
    }
  }
  path_tables = build_path_tables(*this);
}

std::size_t Snapshot::memory_bytes() const {
  std::size_t b = sizeof(*this) + by_lid.capacity() * sizeof(PortRef) +
                  by_port_guid.size() * (sizeof(Guid) + sizeof(PortRef) + 16) +
                  by_node_guid.size() * (sizeof(Guid) + 4 + 16);
  for (const SnapNode& n : nodes) {
    b += sizeof(n) + n.description.capacity() + n.lft.capacity() + n.mft.capacity() * 2;
    for (const SnapPort& p : n.ports)
      b += sizeof(p) + p.pkeys.capacity() * 2;
  }
  for (const SnapGroup& g : groups)
    b += sizeof(g) + g.members.capacity() * sizeof(SnapGroup::Member);
  // The path SL table is shared between snapshots; counted in each, as it is kept alive
  // by each.
  b += partitions.capacity() * sizeof(SnapPartition) +
       path_sl.row_of_lid.capacity() * sizeof(std::uint32_t) +
       (path_sl.sl ? path_sl.sl->capacity() : 0);
  if (path_tables) b += path_tables->bytes();
  return b;
}

}  // namespace ibsm::sa
