#include "sa/alias_guids.hpp"

#include <algorithm>

#include "sa/sa_mad.hpp"

namespace ibsm::sa {

namespace {

// The OUI in SM-assigned alias GUIDs: OpenIB's, as OpenSM uses (osm_base.h).
constexpr std::uint64_t kOpenIbOui = 0x001405;
// OpenSM gives up on finding an unused GUID for one index after this many tries.
constexpr int kAssignTries = 1000;

std::size_t blocks_of(const SnapPort& p) {
  return (std::size_t{p.info.guid_cap} + kGuidsPerBlock - 1) / kGuidsPerBlock;
}

// The indexes of `block` that exist on a port with `guid_cap` entries.
std::pair<std::size_t, std::size_t> block_span(std::size_t block, std::size_t guid_cap) {
  const std::size_t begin = block * kGuidsPerBlock;
  return {begin, std::min(begin + kGuidsPerBlock, guid_cap)};
}

GuidBlock read_block(const std::vector<Guid>& t, std::size_t block) {
  GuidBlock b{};
  for (std::size_t i = 0; i < kGuidsPerBlock; ++i) {
    const std::size_t at = block * kGuidsPerBlock + i;
    if (at < t.size()) b[i] = t[at];
  }
  return b;
}

}  // namespace

void AliasGuids::sync(const Snapshot& snap) {
  if (snap.generation == synced_generation_) return;
  synced_generation_ = snap.generation;
  for (auto it = tables_.begin(); it != tables_.end();) {
    if (snap.find_port_guid(it->first).valid()) {
      ++it;
      continue;
    }
    for (std::size_t i = 1; i < it->second.size(); ++i)
      if (it->second[i] != 0) owners_.erase(it->second[i]);
    std::erase_if(pending_, [&](const Pending& p) { return p.port_guid == it->first; });
    it = tables_.erase(it);
    dirty_ = true;  // the dump loses the table as OpenSM's drop manager does
  }
}

bool AliasGuids::in_use(const Snapshot& snap, Guid guid) const {
  return owners_.contains(guid) || snap.find_port_guid(guid).valid();
}

std::vector<Guid>& AliasGuids::table_for(const Snapshot& snap, PortRef port) {
  const SnapPort& p = snap.port(port);
  auto& t = tables_[p.guid];
  const std::size_t size = blocks_of(p) * kGuidsPerBlock;
  if (t.size() < size) t.resize(size, 0);
  if (!t.empty()) t[0] = p.guid;
  return t;
}

void AliasGuids::queue(Guid port_guid, std::uint8_t block) {
  for (const Pending& p : pending_)
    if (p.port_guid == port_guid && p.block == block) return;
  pending_.push_back(Pending{port_guid, block, {}});
}

std::optional<Guid> AliasGuids::next_assigned(const Snapshot& snap, std::uint8_t assigned_byte) {
  for (int tries = 0; tries < kAssignTries; ++tries) {
    if (counter_ == UINT32_MAX) return std::nullopt;  // every counter value handed out
    ++counter_;
    const Guid g = (kOpenIbOui << 40) | (std::uint64_t{assigned_byte} << 32) | counter_;
    if (!in_use(snap, g)) return g;
  }
  return 0;
}

AliasGuids::Outcome AliasGuids::set(const Snapshot& snap, PortRef port, std::uint8_t block,
                                    std::uint8_t mask, const GuidBlock& want,
                                    std::uint8_t assigned_byte) {
  const SnapPort& sp = snap.port(port);
  if (block >= blocks_of(sp)) return {status::kNoRecords, {}};
  // Index 0 is the port GUID itself, read-only (IBA 14.2.5.5).
  if (block == 0 && (mask & 1u) != 0) return {status::kReqInvalid, {}};
  std::vector<Guid>& t = table_for(snap, port);
  bool dirty = false;
  const auto [begin, end] = block_span(block, sp.info.guid_cap);
  for (std::size_t i = begin; i < end; ++i) {
    if ((mask >> (i % kGuidsPerBlock) & 1u) == 0) continue;
    Guid g = want[i % kGuidsPerBlock];
    if (g == 0) {
      if (t[i] != 0) continue;  // "choose one": the index already has one
      auto& chosen = assigned_[sp.guid];
      if (i < chosen.size() && chosen[i] != 0) {
        g = chosen[i];
      } else {
        const auto fresh = next_assigned(snap, assigned_byte);
        if (!fresh) {
          if (dirty) {
            queue(sp.guid, block);
            dirty_ = true;
          }
          return {status::kNoResources, {}};
        }
        if (*fresh == 0) continue;  // no free GUID for this index; OpenSM skips it
        g = *fresh;
        if (chosen.size() <= i) chosen.resize(t.size(), 0);
        chosen[i] = g;
      }
    }
    // A GUID in use anywhere (this index included) is left alone.
    if (in_use(snap, g)) continue;
    if (t[i] != 0) owners_.erase(t[i]);
    t[i] = g;
    owners_[g] = Owner{sp.guid, i};
    dirty = true;
  }
  if (dirty) {
    queue(sp.guid, block);
    dirty_ = true;
  }
  return {status::kOk, read_block(t, block)};
}

AliasGuids::Outcome AliasGuids::remove(const Snapshot& snap, PortRef port, std::uint8_t block,
                                       std::uint8_t mask,
                                       const std::function<bool(Guid)>& held_by_group) {
  const SnapPort& sp = snap.port(port);
  auto it = tables_.find(sp.guid);
  if (it == tables_.end()) return {status::kOk, {}, true};
  if (block >= blocks_of(sp)) return {status::kNoRecords, {}};
  if (block == 0 && (mask & 1u) != 0) return {status::kReqInvalid, {}};
  std::vector<Guid>& t = it->second;
  const auto [begin, end_cap] = block_span(block, sp.info.guid_cap);
  const std::size_t end = std::min(end_cap, t.size());
  for (std::size_t i = begin; i < end; ++i) {
    if ((mask >> (i % kGuidsPerBlock) & 1u) == 0 || t[i] == 0) continue;
    if (held_by_group && held_by_group(t[i])) return {status::kReqDenied, {}};
  }
  bool dirty = false;
  for (std::size_t i = begin; i < end; ++i) {
    if ((mask >> (i % kGuidsPerBlock) & 1u) == 0 || t[i] == 0) continue;
    owners_.erase(t[i]);
    t[i] = 0;
    dirty = true;
  }
  if (dirty) {
    queue(sp.guid, block);
    dirty_ = true;
  }
  return {status::kOk, read_block(t, block)};
}

AliasGuids::Restored AliasGuids::restore(const Snapshot& snap, Guid port_guid, std::uint8_t block,
                                         const GuidBlock& guids) {
  Restored r;
  const PortRef port = snap.find_port_guid(port_guid);
  // A port gone since the dump, or whose GUID table no longer reaches the block
  // (OpenSM skips both): its aliases are lost, as after a Delete.
  if (!port.valid() || block >= blocks_of(snap.port(port))) {
    for (std::size_t i = block == 0 ? 1 : 0; i < kGuidsPerBlock; ++i)
      r.skipped += guids[i] != 0 ? 1 : 0;
    return r;
  }
  const SnapPort& sp = snap.port(port);
  // The table exists from here on even when the block holds no alias, as OpenSM
  // allocates it, so the next dump writes the port's blocks again.
  std::vector<Guid>& t = table_for(snap, port);
  const auto [begin, end] = block_span(block, sp.info.guid_cap);
  bool changed = false;
  for (std::size_t i = begin; i < begin + kGuidsPerBlock; ++i) {
    const Guid g = guids[i % kGuidsPerBlock];
    if (i == 0 || g == 0) continue;  // index 0 is the port GUID, never an alias
    if (i >= end) {
      ++r.skipped;  // beyond GUIDCap: the port has no such entry
      continue;
    }
    if (t[i] == g) {
      ++r.guids;  // already there (restored twice, or set since the load)
      continue;
    }
    // Another port's GUID or alias, or this one at another index: one owner per GUID.
    if (in_use(snap, g)) {
      ++r.skipped;
      continue;
    }
    if (t[i] != 0) owners_.erase(t[i]);
    t[i] = g;
    owners_[g] = Owner{sp.guid, i};
    ++r.guids;
    changed = true;
  }
  // Queued for the SM like a Set; not dirty, the file already holds these (OpenSM
  // clears sa.dirty after the load).
  if (changed) queue(sp.guid, block);
  return r;
}

const std::vector<Guid>* AliasGuids::table(Guid port_guid) const {
  auto it = tables_.find(port_guid);
  return it == tables_.end() ? nullptr : &it->second;
}

Guid AliasGuids::port_of(Guid alias) const {
  auto it = owners_.find(alias);
  return it == owners_.end() ? 0 : it->second.port_guid;
}

std::vector<AliasGuids::Pending> AliasGuids::take_pending() {
  std::vector<Pending> out;
  out.reserve(pending_.size());
  for (Pending& p : pending_) {
    auto it = tables_.find(p.port_guid);
    if (it == tables_.end()) continue;
    p.guids = read_block(it->second, p.block);
    out.push_back(p);
  }
  pending_.clear();
  return out;
}

}  // namespace ibsm::sa
