// The per-snapshot PathTables (path_resolver.hpp): what a path walk reads per port,
// per link and per switch, laid out flat and built once when a snapshot is indexed,
// so that resolving a path allocates nothing.
#include "sa/path_resolver.hpp"

#include <algorithm>

namespace ibsm::sa {

namespace {

std::uint64_t bswap64(std::uint64_t v) {
  return __builtin_bswap64(v);
}

}  // namespace

std::size_t PathTables::bytes() const {
  return sizeof(*this) + node_base.capacity() * sizeof(std::uint32_t) + is_switch.capacity() +
         lft_row.capacity() * sizeof(std::uint32_t) + lft.capacity() +
         ports.capacity() * sizeof(Port) + links.capacity() * sizeof(Link) +
         pkeys.capacity() * sizeof(PKey) + endpoints.capacity() * sizeof(std::uint32_t) +
         by_guid.capacity() * sizeof(GuidSlot);
}

std::shared_ptr<const PathTables> build_path_tables(const Snapshot& s) {
  auto t = std::make_shared<PathTables>();
  const std::size_t n = s.nodes.size();
  t->node_base.resize(n + 1);
  t->is_switch.resize(n);
  std::uint32_t total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    t->node_base[i] = total;
    t->is_switch[i] = s.nodes[i].is_switch() ? 1 : 0;
    total += static_cast<std::uint32_t>(s.nodes[i].ports.size());
  }
  t->node_base[n] = total;
  t->ports.resize(total);

  std::vector<std::pair<std::uint64_t, std::uint32_t>> order;  // OpenSM key, flat index
  struct Entry {
    std::uint16_t order;
    std::uint16_t index;
    std::uint16_t value;
  };
  std::vector<Entry> entries;
  for (std::uint32_t ni = 0; ni < n; ++ni) {
    const SnapNode& node = s.nodes[ni];
    // A switch's external ports carry no CapabilityMask of their own: port 0's says
    // whether their extended speeds count (OpenSM reads it the same way).
    const bool sw_ext = node.is_switch() && !node.ports.empty() &&
                        (node.ports[0].info.capability_mask & kCapExtendedSpeeds) != 0;
    const bool sw_ext2 =
        node.is_switch() && !node.ports.empty() && extended_speeds2(node.ports[0].info);
    for (std::size_t pi = 0; pi < node.ports.size(); ++pi) {
      const SnapPort& sp = node.ports[pi];
      if (sp.vl_tables && !t->sl2vl_drops) {
        for (std::uint64_t map : sp.vl_tables->sl2vl) {
          for (unsigned sl = 0; sl < 16 && !t->sl2vl_drops; ++sl)
            t->sl2vl_drops = (map >> (4 * sl) & 0xf) == 15;
        }
      }
      PathTables::Port& p = t->ports[t->node_base[ni] + pi];
      p.node = ni;
      p.num = static_cast<PortNum>(pi);
      p.present = sp.present;
      if (sp.peer.valid() && sp.peer.node < n && sp.peer.port < s.nodes[sp.peer.node].ports.size())
        p.peer = t->node_base[sp.peer.node] + sp.peer.port;
      p.mtu = sp.info.mtu_cap & 0x0f;
      const bool ext =
          node.is_switch() ? sw_ext : (sp.info.capability_mask & kCapExtendedSpeeds) != 0;
      const bool ext2 = node.is_switch() ? sw_ext2 : extended_speeds2(sp.info);
      p.rate_rank = rate_rank(port_rate(sp.info, ext, ext2));
      p.holder = sp.present && sp.guid != 0 && (node.is_switch() ? pi == 0 : pi != 0);
      if (!p.holder) continue;
      p.guid = sp.guid;
      p.lid = sp.lid;
      p.lmc = sp.lmc;
      order.emplace_back(bswap64(sp.guid), t->node_base[ni] + static_cast<std::uint32_t>(pi));

      entries.clear();
      for (std::size_t k = 0; k < sp.pkeys.size() && k < 0xffff; ++k) {
        const std::uint16_t v = sp.pkeys[k];
        if ((v & 0x7fff) == 0) continue;  // an empty entry
        entries.push_back({PathTables::pkey_order(static_cast<std::uint16_t>(v & 0x7fff)),
                           static_cast<std::uint16_t>(k), v});
      }
      std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
        return a.order != b.order ? a.order < b.order : a.index < b.index;
      });
      p.pkey_begin = static_cast<std::uint32_t>(t->pkeys.size());
      p.pkey_count = static_cast<std::uint16_t>(entries.size());
      for (std::size_t k = 0; k < entries.size(); ++k) {
        const bool first = k == 0 || entries[k - 1].order != entries[k].order;
        t->pkeys.push_back({entries[k].order, entries[k].value, first});
      }
    }
  }
  t->links.resize(total);
  for (std::uint32_t fp = 0; fp < total; ++fp) {
    const PathTables::Port& p = t->ports[fp];
    PathTables::Link& l = t->links[fp];
    l.self_mtu = p.mtu;
    l.self_rank = p.rate_rank;
    l.present = p.present;
    if (p.peer == kNone) continue;
    const PathTables::Port& q = t->ports[p.peer];
    l.next_node = q.node;
    l.next_port = q.num;
    l.peer_mtu = q.mtu;
    l.peer_rank = q.rate_rank;
  }

  std::sort(order.begin(), order.end());
  t->endpoints.reserve(order.size());
  Lid top = 0;
  for (const auto& [key, fp] : order) {
    t->endpoints.push_back(fp);
    const PathTables::Port& p = t->ports[fp];
    top = static_cast<Lid>(std::max<unsigned>(top, std::min(p.lid + (1u << p.lmc) - 1, 0xbfffu)));
  }

  std::size_t slots = 16;
  while (slots < order.size() * 2)
    slots *= 2;
  t->by_guid.assign(slots, {});
  for (std::uint32_t fp : t->endpoints) {
    const Guid g = t->ports[fp].guid;
    for (std::size_t i = PathTables::guid_hash(g) & (slots - 1);; i = (i + 1) & (slots - 1)) {
      if (t->by_guid[i].guid == g) break;  // a duplicate GUID: the first port keeps it
      if (t->by_guid[i].guid != 0) continue;
      t->by_guid[i] = {g, fp};
      break;
    }
  }

  t->lft_stride = std::size_t{top} + 1;
  t->lft_row.assign(n, 0);
  std::size_t switches = 0;
  for (std::size_t i = 0; i < n; ++i)
    switches += t->is_switch[i];
  t->lft.assign(switches * t->lft_stride, PortNum{0xff});
  std::size_t row = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (t->is_switch[i] == 0) continue;
    t->lft_row[i] = static_cast<std::uint32_t>(row);
    const std::vector<PortNum>& lft = s.nodes[i].lft;
    std::copy_n(lft.begin(), std::min(lft.size(), t->lft_stride), t->lft.begin() + row);
    row += t->lft_stride;
  }
  return t;
}

}  // namespace ibsm::sa
