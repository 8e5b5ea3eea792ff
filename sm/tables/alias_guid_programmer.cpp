#include "sm/tables/alias_guid_programmer.hpp"

#include <algorithm>
#include <unordered_set>
#include <vector>

#include "sm/errors.hpp"

namespace ibsm::sm {

using mad::GuidInfoBlock;
using mad::SmpOutcome;
using mad::SmpRequest;

namespace {

// Index 0 of block 0 is the port GUID, read-only (IBA 14.2.5.5): never ours to fix,
// so it takes no part in deciding whether a block must be written.
bool same(const GuidInfoBlock& a, const GuidInfoBlock& b, std::uint8_t block) {
  for (std::size_t i = block == 0 ? 1 : 0; i < GuidInfoBlock::kEntries; ++i)
    if (a.guids[i] != b.guids[i]) return false;
  return true;
}

// What a port holds in a block nobody wrote since its reset: its GUID at index 0.
GuidInfoBlock reset_contents(Guid port_guid, std::uint8_t block) {
  GuidInfoBlock b;
  if (block == 0) b.guids[0] = port_guid;
  return b;
}

GuidInfoBlock block_of(const std::vector<Guid>& table, std::size_t block) {
  GuidInfoBlock b;
  for (std::size_t i = 0; i < GuidInfoBlock::kEntries; ++i) {
    const std::size_t at = block * GuidInfoBlock::kEntries + i;
    if (at < table.size()) b.guids[i] = table[at];
  }
  return b;
}

// Ports with a GUID table: every port of a CA or router, port 0 of a switch.
bool has_table(const Node& n, PortNum p) {
  return n.is_switch() ? p == 0 : p != 0;
}

}  // namespace

std::optional<AliasGuidProgrammer::Target> AliasGuidProgrammer::target(const Fabric& f,
                                                                       NodeIndex node,
                                                                       PortNum port) {
  const Node& n = f.node(node);
  if (port >= n.ports.size() || !has_table(n, port)) return std::nullopt;
  const Port& p = n.ports[port];
  if (!p.present || p.guid == 0) return std::nullopt;
  Target t;
  t.guid = p.guid;
  t.blocks = mad::guid_info_blocks(p.info.guid_cap);
  // GUIDCap 1: the port GUID is all the table holds; there is no room for an alias.
  if (p.info.guid_cap <= 1) return std::nullopt;
  if (n.is_switch()) {
    t.path = n.path;
  } else if (node == f.sm_node && port == f.sm_port) {
    t.path = n.path;  // hop 0: the SM's own port answers
  } else if (p.peer != kNoNode && f.node(p.peer).is_switch()) {
    // A CA answers for the port the SMP enters on: address it through its peer switch,
    // as the PortInfo Sets do.
    auto ext = f.node(p.peer).path.extended(p.peer_port);
    if (!ext) return std::nullopt;
    t.path = *ext;
  } else if (n.info.local_port_num == port) {
    t.path = n.path;  // no switch in front (back to back): the port discovery came in by
  } else {
    return std::nullopt;
  }
  return t;
}

std::optional<GuidInfoBlock> AliasGuidProgrammer::held(Guid port_guid, std::uint8_t block) const {
  auto it = ports_.find(port_guid);
  if (it == ports_.end()) return std::nullopt;
  auto b = it->second.held.find(block);
  if (b == it->second.held.end()) return std::nullopt;
  return b->second;
}

bool AliasGuidProgrammer::send_if_differs(const Target& t, std::uint8_t block,
                                          const GuidInfoBlock& want, mad::SmpClient& client) {
  if (block >= t.blocks) return false;
  PortRecord& rec = ports_[t.guid];
  auto h = rec.held.find(block);
  const GuidInfoBlock have = h != rec.held.end() ? h->second : reset_contents(t.guid, block);
  if (same(have, want, block)) return false;
  if (auto w = rec.in_flight.find(block); w != rec.in_flight.end() && same(w->second, want, block))
    return false;
  if (auto r = rec.refused.find(block); r != rec.refused.end() && same(r->second, want, block))
    return false;
  GuidInfoBlock payload = want;
  if (block == 0) payload.guids[0] = t.guid;  // read-only, but say what it is
  rec.in_flight[block] = payload;
  ++counters_.sets;
  log_->debug("alias GUIDs: Set GUIDInfo block {} of port 0x{:016x} by DR path {}", block, t.guid,
              t.path.to_string());
  const Guid guid = t.guid;
  client.submit(
      SmpRequest::set(t.path, payload, block),
      [this, guid, block, payload](const SmpOutcome& o) { on_answer(guid, block, payload, o); });
  return true;
}

void AliasGuidProgrammer::on_answer(Guid port_guid, std::uint8_t block, const GuidInfoBlock& want,
                                    const SmpOutcome& o) {
  PortRecord& rec = ports_[port_guid];
  rec.in_flight.erase(block);
  if (!o.ok()) {
    if (o.failure->kind == mad::SmpFailure::Kind::kStatus) {
      // The port will not take this block (ibsim: Set not supported): asking again for
      // the same contents would be refused again.
      ++counters_.refused;
      rec.refused[block] = want;
      log_->warn("{}: alias GUIDs: port 0x{:016x} refused GUIDInfo block {} (status 0x{:04x}): {}",
                 format_error_id(kErrProgrammingFailed), port_guid, block, o.failure->status,
                 o.request.describe());
    } else {
      // Lost: the next heavy sweep, or the next change, tries again.
      ++counters_.failed;
      log_->warn("{}: alias GUIDs: GUIDInfo block {} of port 0x{:016x}: {}: {}",
                 format_error_id(kErrProgrammingFailed), block, port_guid,
                 mad::failure_kind_name(o.failure->kind), o.failure->detail);
    }
    return;
  }
  auto got = mad::decode<GuidInfoBlock>(o.response->data());
  if (!got.ok()) {
    ++counters_.failed;
    log_->warn("{}: alias GUIDs: GUIDInfo block {} of port 0x{:016x}: {}",
               format_error_id(kErrProgrammingFailed), block, port_guid, got.error().message);
    return;
  }
  // The GetResp of a Set carries what the port now holds (IBA 13.4.5).
  rec.held[block] = *got;
  if (same(*got, want, block)) {
    ++counters_.confirmed;
    rec.refused.erase(block);
    return;
  }
  ++counters_.refused;
  rec.refused[block] = want;
  log_->warn("{}: alias GUIDs: port 0x{:016x} kept other GUIDs in GUIDInfo block {} than set",
             format_error_id(kErrProgrammingFailed), port_guid, block);
}

std::size_t AliasGuidProgrammer::program_all(const Fabric& f, sa::AliasGuids& aliases,
                                             mad::SmpClient& client, bool new_master) {
  // The comparison below covers every table, the queued blocks among them.
  static_cast<void>(aliases.take_pending());
  if (new_master) ports_.clear();
  std::unordered_set<Guid> present;
  for (NodeIndex i = 0; i < f.size(); ++i) {
    const Node& n = f.node(i);
    for (const Port& p : n.ports) {
      if (!p.present || !has_table(n, p.num)) continue;
      present.insert(p.guid);
      // LID 0 as discovery read it: the port was reset and lost its aliases.
      if (p.info.lid == 0) ports_.erase(p.guid);
    }
  }
  std::erase_if(ports_, [&](const auto& kv) { return !present.contains(kv.first); });

  std::size_t sent = 0;
  std::size_t targets = 0;
  for (NodeIndex i = 0; i < f.size(); ++i) {
    const Node& n = f.node(i);
    for (const Port& p : n.ports) {
      if (!p.present || !has_table(n, p.num)) continue;
      const std::vector<Guid>* table = aliases.table(p.guid);
      if (table == nullptr) continue;
      const auto t = target(f, i, p.num);
      if (!t) continue;
      const std::size_t before = sent;
      const std::size_t blocks =
          std::min<std::size_t>(t->blocks, table->size() / GuidInfoBlock::kEntries);
      for (std::size_t b = 0; b < blocks; ++b)
        sent +=
            send_if_differs(*t, static_cast<std::uint8_t>(b), block_of(*table, b), client) ? 1 : 0;
      targets += sent != before ? 1 : 0;
    }
  }
  if (sent > 0) log_->info("alias GUIDs: {} GUIDInfo blocks to write into {} ports", sent, targets);
  return sent;
}

std::size_t AliasGuidProgrammer::program_changes(const Fabric& f, sa::AliasGuids& aliases,
                                                 mad::SmpClient& client) {
  const auto pending = aliases.take_pending();
  if (pending.empty()) return 0;
  std::unordered_map<Guid, std::pair<NodeIndex, PortNum>> where;
  for (const auto& p : pending)
    where.emplace(p.port_guid, std::pair{kNoNode, PortNum{0}});
  for (NodeIndex i = 0; i < f.size(); ++i) {
    const Node& n = f.node(i);
    for (const Port& p : n.ports) {
      if (!p.present || !has_table(n, p.num)) continue;
      if (auto it = where.find(p.guid); it != where.end()) it->second = {i, p.num};
    }
  }
  std::size_t sent = 0;
  for (const auto& p : pending) {
    const auto [node, port] = where.at(p.port_guid);
    if (node == kNoNode) {
      // Not in the last sweep's fabric: the heavy sweep that finds it writes the table.
      log_->debug("alias GUIDs: port 0x{:016x} not in the fabric; block {} waits for a sweep",
                  p.port_guid, p.block);
      continue;
    }
    const auto t = target(f, node, port);
    if (!t) continue;
    GuidInfoBlock want;
    std::copy(p.guids.begin(), p.guids.end(), want.guids.begin());
    sent += send_if_differs(*t, p.block, want, client) ? 1 : 0;
  }
  if (sent > 0) log_->info("alias GUIDs: {} changed GUIDInfo blocks to write", sent);
  return sent;
}

}  // namespace ibsm::sm
