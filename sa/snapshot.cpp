#include "sa/snapshot.hpp"

#include <algorithm>

#include "sa/path_resolver.hpp"

namespace ibsm::sa {

namespace {

// End ports and switch port 0 hold the LIDs and the port GUIDs.
bool holds_lid(const SnapNode& n, const SnapPort& p) {
  return p.present && (n.is_switch() ? p.num == 0 : p.num != 0);
}

}  // namespace

void Snapshot::index() {
  // by_lid reaches the highest LID in use, not 0xBFFF: 48K entries are most of a
  // small fabric's snapshot.
  std::size_t lids = 1;
  for (const SnapNode& node : nodes)
    for (const SnapPort& p : node.ports)
      if (holds_lid(node, p) && p.lid != 0)
        lids = std::max(lids, std::size_t{p.lid} + (std::size_t{1} << p.lmc));
  by_lid.assign(std::min<std::size_t>(lids, std::size_t{mad::kMaxUnicastLid} + 1), PortRef{});
  by_port_guid.clear();
  by_node_guid.clear();
  by_port_guid.reserve(nodes.size() * 2);
  by_node_guid.reserve(nodes.size());
  for (std::uint32_t n = 0; n < nodes.size(); ++n) {
    SnapNode& node = nodes[n];
    node.index = n;
    by_node_guid.emplace(node.guid(), n);
    for (const SnapPort& p : node.ports) {
      if (!holds_lid(node, p)) continue;
      if (p.guid != 0) by_port_guid.emplace(p.guid, PortRef{n, p.num});
      if (p.lid == 0) continue;
      const std::size_t count = std::size_t{1} << p.lmc;
      for (std::size_t l = p.lid; l < p.lid + count && l < by_lid.size(); ++l)
        by_lid[l] = PortRef{n, p.num};
    }
  }
  path_tables = build_path_tables(*this);
}

SnapshotPtr port_presence(const Snapshot& s) {
  auto out = std::make_shared<Snapshot>();
  out->generation = s.generation;
  out->subnet_prefix = s.subnet_prefix;
  out->sm_lid = s.sm_lid;
  out->nodes.resize(s.nodes.size());
  out->by_node_guid.reserve(s.nodes.size());
  out->by_port_guid.reserve(s.by_port_guid.size());
  for (std::uint32_t n = 0; n < s.nodes.size(); ++n) {
    const SnapNode& from = s.nodes[n];
    SnapNode& to = out->nodes[n];
    to.info = from.info;
    to.index = n;
    out->by_node_guid.emplace(from.guid(), n);
    // Ports keep their numbers as indexes: a switch needs port 0 only.
    const std::size_t keep =
        from.is_switch() ? std::min<std::size_t>(1, from.ports.size()) : from.ports.size();
    to.ports.resize(keep);
    for (std::size_t i = 0; i < keep; ++i) {
      const SnapPort& p = from.ports[i];
      SnapPort& q = to.ports[i];
      q.num = p.num;
      if (!holds_lid(from, p)) continue;
      q.present = true;
      q.guid = p.guid;
      q.pkeys = p.pkeys;
      q.lid = p.lid;
      q.lmc = p.lmc;
      if (p.guid != 0) out->by_port_guid.emplace(p.guid, PortRef{n, p.num});
    }
  }
  return out;
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
