#include "sm/tables/port_tables.hpp"

#include <algorithm>
#include <string>

#include "mad/attribute_codec.hpp"

namespace ibsm::sm {

using mad::SmpOutcome;
using mad::SmpRequest;

namespace {

std::size_t pkey_blocks(std::size_t capacity) {
  return (capacity + mad::PKeyBlock::kEntries - 1) / mad::PKeyBlock::kEntries;
}

// The DR path that reaches a port's tables: a switch answers for all its ports; a CA
// answers for the port the SMP enters by, so it is addressed through its peer.
mad::DrPath path_to(const Fabric& f, const Node& n, const Port& p) {
  if (!n.is_switch() && p.peer != kNoNode) {
    if (auto ext = f.node(p.peer).path.extended(p.peer_port)) return *ext;
  }
  return n.path;
}

// The reset mark: a port that holds a LID (a CA port, switch port 0) reads LID 0
// again, as every port does after a power cycle (IBA 14.2.5.6: LID is 0 after reset).
bool lost_lid(const Port& p) {
  return p.present && p.info.lid == 0;
}

}  // namespace

std::vector<TableWant> tables_of(const Fabric& f, NodeIndex idx) {
  std::vector<TableWant> out;
  const Node& n = f.node(idx);
  const auto add = [&](TableWant::Kind k, PortNum port, std::uint16_t index) {
    out.push_back(TableWant{idx, k, port, index});
  };
  const auto add_vlarb = [&](PortNum port, const mad::PortInfo& pi) {
    for (unsigned b = 1; b <= mad::VlArbBlock::kBlocks; ++b) {
      if (mad::vlarb_block_exists(pi.vl_cap, pi.vl_arbitration_low_cap, pi.vl_arbitration_high_cap,
                                  b))
        add(TableWant::Kind::kVlArb, port, static_cast<std::uint16_t>(b));
    }
  };
  if (!n.is_switch()) {
    for (const Port& p : n.ports) {
      if (p.num == 0 || !p.link_up()) continue;
      if ((p.info.capability_mask & mad::kCapIsSlMappingSupported) != 0)
        add(TableWant::Kind::kSl2Vl, p.num, 0);
      add_vlarb(p.num, p.info);
    }
    return out;
  }
  if (n.ports.empty() || !n.ports[0].present) return out;
  const Port& p0 = n.ports[0];
  const bool sl_map = (p0.info.capability_mask & mad::kCapIsSlMappingSupported) != 0;
  const bool enhanced = n.switch_info && n.switch_info->enhanced_port0;
  const std::uint16_t enforce_cap = n.switch_info ? n.switch_info->partition_enforcement_cap : 0;
  // A switch's SL2VL tables are one per (input, output) pair and its VLArbitration
  // tables four per port: about (N+1)^2 + 4N Gets for an N-port switch, 1.3 million
  // on a 972-switch fabric of 36-port switches. A switch's management processor is
  // slow and the SM's window is shared with sweeps, so they are not read: until the
  // SM programs them (QoS, deadlock-free engines record what they Set here), the SA
  // reports them as OpenSM does (zeros). Only an enhanced port 0, which is an end
  // port of its own, has its tables read like a CA port's.
  if (enhanced) {
    if (sl_map) add(TableWant::Kind::kSl2Vl, 0, 0);
    add_vlarb(0, p0.info);
  }
  for (const Port& out_port : n.ports) {
    // P_Keys of the switch ports PartitionManager::read_tables leaves alone (it sized
    // Port::pkeys of those it reads): OpenSM reads every up port's table, and
    // P_KeyTableRecord shows them. One block per port for PartitionEnforcementCap <= 32.
    if (out_port.num != 0 && out_port.link_up() && out_port.pkeys.empty()) {
      for (std::size_t b = 0; b < pkey_blocks(enforce_cap); ++b)
        add(TableWant::Kind::kPKey, out_port.num, static_cast<std::uint16_t>(b));
    }
  }
  return out;
}

void PortTables::forget_changed(const Fabric& f) {
  std::unordered_map<Guid, NodeEntry> kept;
  kept.reserve(nodes_.size());
  for (const Node& n : f.nodes()) {
    auto it = nodes_.find(n.guid());
    if (it == nodes_.end()) continue;
    NodeEntry e = std::move(it->second);
    if (e.ports.size() != n.ports.size()) continue;  // another device under that GUID
    if (n.is_switch()) {
      if (lost_lid(n.ports[0])) {
        log_->debug("port tables: switch {} was reset; reading its tables again",
                    mad::format_guid(n.guid()));
        continue;
      }
    } else {
      for (const Port& p : n.ports) {
        if (p.num != 0 && lost_lid(p)) e.ports[p.num] = PortEntry{};
      }
    }
    kept.emplace(n.guid(), std::move(e));
  }
  nodes_ = std::move(kept);
}

PortTables::Counts PortTables::read(const Fabric& f, mad::SmpClient& client) {
  Counts c;
  // What to ask, decided now; the SMPs themselves are made as the client's queue
  // drains (SmpClient::submit_feed): a few bytes each instead of a queued request.
  std::vector<TableWant> asks;
  for (NodeIndex i = 0; i < f.size(); ++i) {
    const Node& n = f.node(i);
    const Guid guid = n.guid();
    ensure(n);
    NodeEntry& e = nodes_[guid];
    for (const Port& p : n.ports) {
      // The partition manager reads this port's P_Keys now: its answer is the truth,
      // and if the port faces a switch again later it is read here again.
      if (p.num != 0 && !p.pkeys.empty() && !e.ports[p.num].pkeys.empty()) {
        e.ports[p.num].pkeys.clear();
        e.ports[p.num].pkey_known.clear();
      }
    }
    for (const TableWant& w : tables_of(f, i)) {
      PortEntry& pe = e.ports[w.port];
      switch (w.kind) {
        case TableWant::Kind::kSl2Vl:
          if (w.index < pe.sl2vl_known.size() && pe.sl2vl_known[w.index]) continue;
          ++c.sl2vl;
          break;
        case TableWant::Kind::kVlArb:
          if (pe.vlarb && pe.vlarb->known[w.index - 1u]) continue;
          ++c.vlarb;
          break;
        case TableWant::Kind::kPKey: {
          // The table's size comes from PartitionEnforcementCap (IBA 14.2.5.4).
          const std::size_t blocks = pkey_blocks(
              n.switch_info ? n.switch_info->partition_enforcement_cap : std::size_t{0});
          if (pe.pkey_known.size() != blocks) {
            pe.pkeys.assign(blocks * mad::PKeyBlock::kEntries, 0);
            pe.pkey_known.assign(blocks, false);
          }
          if (w.index >= blocks || pe.pkey_known[w.index]) continue;
          ++c.pkey;
          break;
        }
      }
      asks.push_back(w);
    }
  }
  if (c.total() > 0) {
    log_->info(
        "port tables: reading {} SLtoVLMappingTable, {} VLArbitrationTable and {} "
        "P_KeyTable blocks (ports new, reset or up since the last read)",
        c.sl2vl, c.vlarb, c.pkey);
    std::vector<Guid> guids;  // a node index is used only while it names the same node
    guids.reserve(asks.size());
    for (const TableWant& w : asks)
      guids.push_back(f.node(w.node).guid());
    client.submit_feed([this, &f, asks = std::move(asks), guids = std::move(guids),
                        next = std::size_t{0}](mad::SmpClient& cl) mutable {
      while (next < asks.size()) {
        const TableWant w = asks[next];
        const Guid guid = guids[next++];
        if (w.node < f.size() && f.node(w.node).guid() == guid &&
            w.port < f.node(w.node).ports.size()) {
          submit_read(f, w, cl);
          return true;
        }
      }
      return false;
    });
  }
  return c;
}

void PortTables::submit_read(const Fabric& f, const TableWant& w, mad::SmpClient& client) {
  const Node& n = f.node(w.node);
  const Guid guid = n.guid();
  const mad::DrPath path = path_to(f, n, n.ports[w.port]);
  const auto on_fail = [this, guid, w](const SmpOutcome& o) {
    if (o.failure != nullptr && o.failure->kind == mad::SmpFailure::Kind::kStatus) {
      log_->debug("port tables: {}: status 0x{:04x}, the port has no such table",
                  o.request.describe(), o.failure->status);
      mark_absent(guid, w);
      return;
    }
    log_->info("port tables: {}: {}; asked again on the next heavy sweep", o.request.describe(),
               o.failure != nullptr ? o.failure->detail : "failed");
  };
  switch (w.kind) {
    case TableWant::Kind::kSl2Vl: {
      const auto in = static_cast<PortNum>(w.index);
      const std::uint32_t mod = n.is_switch() ? mad::sl2vl_attr_mod(in, w.port) : 0;
      client.submit(SmpRequest::get<mad::SlToVlTable>(path, mod), [this, guid, w, in,
                                                                   on_fail](const SmpOutcome& o) {
        if (!o.ok()) return on_fail(o);
        record_sl2vl(guid, w.port, in, mad::SlToVlTable::decode_payload(o.response->data()));
      });
      break;
    }
    case TableWant::Kind::kVlArb: {
      const PortNum sw_port = n.is_switch() ? w.port : PortNum{0};
      client.submit(SmpRequest::get<mad::VlArbBlock>(path, mad::vlarb_attr_mod(w.index, sw_port)),
                    [this, guid, w, on_fail](const SmpOutcome& o) {
                      if (!o.ok()) return on_fail(o);
                      record_vlarb(guid, w.port, w.index,
                                   mad::VlArbBlock::decode_payload(o.response->data()));
                    });
      break;
    }
    case TableWant::Kind::kPKey:
      client.submit(SmpRequest::get<mad::PKeyBlock>(path, mad::pkey_attr_mod(w.index, w.port)),
                    [this, guid, w, on_fail](const SmpOutcome& o) {
                      if (!o.ok()) return on_fail(o);
                      record_pkeys(guid, w.port, w.index,
                                   mad::PKeyBlock::decode_payload(o.response->data()));
                    });
      break;
  }
}

void PortTables::ensure(const Node& n) {
  NodeEntry& e = nodes_[n.guid()];
  if (e.ports.size() != n.ports.size()) {
    e.ports.clear();
    e.ports.resize(n.ports.size());
  }
}

std::optional<std::uint64_t> PortTables::sl2vl(Guid node, PortNum out, PortNum in) const {
  const PortEntry* e = entry(node, out);
  if (e == nullptr || in >= e->sl2vl.size() || !e->sl2vl_known[in]) return std::nullopt;
  return e->sl2vl[in];
}

std::optional<mad::VlArbBlock> PortTables::vlarb(Guid node, PortNum port, unsigned block) const {
  const PortEntry* e = entry(node, port);
  if (e == nullptr || !e->vlarb || block < 1 || block > mad::VlArbBlock::kBlocks ||
      !e->vlarb->known[block - 1])
    return std::nullopt;
  return mad::VlArbBlock::decode_payload(mad::ConstPayload(e->vlarb->blocks[block - 1]));
}

PortTables::PortEntry* PortTables::entry(Guid node, PortNum port) {
  auto it = nodes_.find(node);
  if (it == nodes_.end() || port >= it->second.ports.size()) return nullptr;
  return &it->second.ports[port];
}

const PortTables::PortEntry* PortTables::entry(Guid node, PortNum port) const {
  auto it = nodes_.find(node);
  if (it == nodes_.end() || port >= it->second.ports.size()) return nullptr;
  return &it->second.ports[port];
}

void PortTables::record_sl2vl(Guid node, PortNum out, PortNum in, const mad::SlToVlTable& t) {
  PortEntry* e = entry(node, out);
  // Input ports are the node's ports (a CA port's one table is input 0).
  if (e == nullptr || in >= nodes_.at(node).ports.size()) return;
  if (in >= e->sl2vl.size()) {
    e->sl2vl.resize(in + 1u, 0);
    e->sl2vl_known.resize(in + 1u, false);
  }
  e->sl2vl[in] = t.packed();
  e->sl2vl_known[in] = true;
  e->published.reset();
}

void PortTables::record_vlarb(Guid node, PortNum port, unsigned block, const mad::VlArbBlock& b) {
  PortEntry* e = entry(node, port);
  if (e == nullptr || block < 1 || block > mad::VlArbBlock::kBlocks) return;
  if (!e->vlarb) e->vlarb = std::make_unique<VlArbBlocks>();
  mad::encode(b, mad::Payload(e->vlarb->blocks[block - 1]));
  e->vlarb->known[block - 1] = true;
  e->published.reset();
}

void PortTables::record_pkeys(Guid node, PortNum port, std::uint16_t block,
                              const mad::PKeyBlock& b) {
  PortEntry* e = entry(node, port);
  if (e == nullptr || block >= e->pkey_known.size()) return;
  std::copy(b.pkeys.begin(), b.pkeys.end(),
            e->pkeys.begin() + static_cast<std::ptrdiff_t>(block * mad::PKeyBlock::kEntries));
  e->pkey_known[block] = true;
}

void PortTables::mark_absent(Guid node, const TableWant& w) {
  switch (w.kind) {
    case TableWant::Kind::kSl2Vl:
      record_sl2vl(node, w.port, static_cast<PortNum>(w.index), mad::SlToVlTable{});
      break;
    case TableWant::Kind::kVlArb:
      record_vlarb(node, w.port, w.index, mad::VlArbBlock{});
      break;
    case TableWant::Kind::kPKey:
      record_pkeys(node, w.port, w.index, mad::PKeyBlock{});
      break;
  }
}

std::shared_ptr<const sa::PortVlTables> PortTables::vl_tables(Guid node, PortNum port) const {
  const PortEntry* e = entry(node, port);
  if (e == nullptr) return nullptr;
  if (e->published) return e->published;
  const bool any =
      std::find(e->sl2vl_known.begin(), e->sl2vl_known.end(), true) != e->sl2vl_known.end() ||
      (e->vlarb &&
       std::find(e->vlarb->known.begin(), e->vlarb->known.end(), true) != e->vlarb->known.end());
  if (!any) return nullptr;
  auto t = std::make_shared<sa::PortVlTables>();
  t->sl2vl = e->sl2vl;
  if (e->vlarb) t->vlarb = e->vlarb->blocks;
  e->published = std::move(t);
  return e->published;
}

const std::vector<std::uint16_t>* PortTables::pkeys(Guid node, PortNum port) const {
  const PortEntry* e = entry(node, port);
  if (e == nullptr || e->pkey_known.empty()) return nullptr;
  for (bool k : e->pkey_known)
    if (!k) return nullptr;
  return &e->pkeys;
}

}  // namespace ibsm::sm
