#include "sa/mcast/group_store.hpp"

#include <algorithm>

namespace ibsm::sa {

McMember* McMembers::find(Guid id) {
  auto it = at_.find(id);
  return it == at_.end() ? nullptr : &list_[it->second];
}

const McMember* McMembers::find(Guid id) const {
  auto it = at_.find(id);
  return it == at_.end() ? nullptr : &list_[it->second];
}

McMember& McMembers::push_back(const McMember& m) {
  at_.try_emplace(gid_interface_id(m.port_gid), static_cast<std::uint32_t>(list_.size()));
  list_.push_back(m);
  return list_.back();
}

void McMembers::reindex() {
  at_.clear();
  for (std::uint32_t i = 0; i < list_.size(); ++i)
    at_.try_emplace(gid_interface_id(list_[i].port_gid), i);
}

bool McGroupRec::has_full_member() const {
  return std::any_of(members.begin(), members.end(), [](const McMember& m) {
    return (m.join_state & (join::kFull | join::kSendOnlyFull)) != 0;
  });
}

void McGroupStore::apply_configured(const std::vector<SnapGroup>& configured) {
  std::set<Gid> wanted;
  for (const SnapGroup& g : configured) {
    wanted.insert(g.mgid);
    auto it = groups_.find(g.mgid);
    if (it != groups_.end()) {
      McGroupRec& r = it->second;
      if (r.mlid != g.mlid) {
        // The configuration moved the group to another MLID: its tree moves too.
        mark_dirty(r.mlid);
        if (--mlid_users_[r.mlid] == 0) mlid_users_.erase(r.mlid);
        r.mlid = g.mlid;
        ++mlid_users_[r.mlid];
        mark_dirty(r.mlid);
      }
      // The SL of a configured group follows the QoS policy, which a SIGHUP can change
      // (qos_policy/multicast_sl.hpp); members learn it from their next query.
      r.sl = g.sl;
      r.well_known = true;
      continue;
    }
    McGroupRec r;
    r.mgid = g.mgid;
    r.mlid = g.mlid;
    r.qkey = g.qkey;
    r.pkey = g.pkey;
    r.mtu = g.mtu;
    r.rate = g.rate;
    r.packet_life = g.packet_life;
    r.sl = g.sl;
    r.flow_label = g.flow_label;
    r.hop_limit = g.hop_limit;
    r.tclass = g.tclass;
    r.scope = g.scope;
    r.well_known = true;
    ++mlid_users_[r.mlid];
    groups_.emplace(r.mgid, std::move(r));
  }
  std::vector<Gid> gone;
  for (auto& [mgid, r] : groups_) {
    if (!r.well_known || wanted.count(mgid) != 0) continue;
    r.well_known = false;
    if (!r.has_full_member()) gone.push_back(mgid);
  }
  for (const Gid& g : gone)
    erase(g);
}

const McGroupRec* McGroupStore::find(const Gid& mgid) const {
  auto it = groups_.find(mgid);
  return it == groups_.end() ? nullptr : &it->second;
}

McGroupRec* McGroupStore::find(const Gid& mgid) {
  auto it = groups_.find(mgid);
  return it == groups_.end() ? nullptr : &it->second;
}

std::vector<const McGroupRec*> McGroupStore::by_mlid(Lid mlid) const {
  std::vector<const McGroupRec*> out;
  for (const auto& [mgid, r] : groups_)
    if (r.mlid == mlid) out.push_back(&r);
  return out;
}

McGroupRec* McGroupStore::create(McGroupRec group, std::optional<Lid> wanted_mlid) {
  Lid mlid = 0;
  if (wanted_mlid && *wanted_mlid >= 0xC000 && *wanted_mlid <= mlid_last_ &&
      mlid_users_.count(*wanted_mlid) == 0) {
    mlid = *wanted_mlid;
  } else {
    for (std::uint32_t m = 0xC000; m <= mlid_last_; ++m) {
      if (mlid_users_.count(static_cast<Lid>(m)) == 0) {
        mlid = static_cast<Lid>(m);
        break;
      }
    }
  }
  if (mlid == 0) return nullptr;
  group.mlid = mlid;
  ++mlid_users_[mlid];
  mark_dirty(mlid);
  auto [it, inserted] = groups_.insert_or_assign(group.mgid, std::move(group));
  (void)inserted;
  return &it->second;
}

McGroupRec* McGroupStore::create_shared(McGroupRec group, Lid mlid) {
  auto u = mlid_users_.find(mlid);
  if (u == mlid_users_.end() || groups_.count(group.mgid) != 0) return nullptr;
  group.mlid = mlid;
  ++u->second;
  mark_dirty(mlid);
  auto [it, inserted] = groups_.emplace(group.mgid, std::move(group));
  (void)inserted;
  return &it->second;
}

void McGroupStore::erase(const Gid& mgid) {
  auto it = groups_.find(mgid);
  if (it == groups_.end()) return;
  const Lid mlid = it->second.mlid;
  groups_.erase(it);
  auto u = mlid_users_.find(mlid);
  if (u != mlid_users_.end() && --u->second == 0) mlid_users_.erase(u);
  mark_dirty(mlid);
}

std::vector<Gid> McGroupStore::drop_absent_ports(const Snapshot& snap) {
  std::vector<Gid> deleted;
  for (auto& [mgid, r] : groups_) {
    const auto before = r.members.size();
    r.members.erase_if(
        [&](const McMember& m) { return !snap.find_port_guid(m.port_guid).valid(); });
    if (r.members.size() != before) mark_dirty(r.mlid);
    if (!r.well_known && !r.has_full_member()) deleted.push_back(mgid);
  }
  for (const Gid& g : deleted)
    erase(g);
  return deleted;
}

void McGroupStore::note_membership(Guid requester, const Gid& mgid, Guid member_id) {
  joins_by_[requester].push_back({mgid, member_id});
  ++noted_total_;
}

void McGroupStore::note_created(Guid requester, const Gid& mgid) {
  created_by_[requester].push_back(mgid);
}

bool McGroupStore::still_held(Guid requester, const Noted& n) const {
  const McGroupRec* g = find(n.mgid);
  if (g == nullptr) return false;
  const McMember* m = g->members.find(n.member_id);
  return m != nullptr && m->joined_by == requester;
}

std::size_t McGroupStore::memberships_of(Guid requester) {
  auto it = joins_by_.find(requester);
  if (it == joins_by_.end()) return 0;
  auto& list = it->second;
  const std::size_t gone =
      std::erase_if(list, [&](const Noted& n) { return !still_held(requester, n); });
  noted_total_ -= gone;
  if (list.empty()) {
    joins_by_.erase(it);
    return 0;
  }
  return list.size();
}

std::size_t McGroupStore::groups_created_by(Guid requester) {
  auto it = created_by_.find(requester);
  if (it == created_by_.end()) return 0;
  auto& list = it->second;
  std::erase_if(list, [&](const Gid& mgid) {
    const McGroupRec* g = find(mgid);
    return g == nullptr || g->creator != requester;
  });
  if (list.empty()) {
    created_by_.erase(it);
    return 0;
  }
  return list.size();
}

std::size_t McGroupStore::memberships_total(std::size_t cap) {
  // Below the cap the count with stale notes is enough; at it, the notes are
  // checked once, and again only after a member set changed (mark_dirty).
  if (noted_total_ < cap || pruned_at_changes_ == changes_seen_) return noted_total_;
  for (auto it = joins_by_.begin(); it != joins_by_.end();) {
    const std::size_t before = it->second.size();
    std::erase_if(it->second, [&](const Noted& n) { return !still_held(it->first, n); });
    noted_total_ -= before - it->second.size();
    it = it->second.empty() ? joins_by_.erase(it) : std::next(it);
  }
  pruned_at_changes_ = changes_seen_;
  return noted_total_;
}

void McGroupStore::forget_absent_requesters(const Snapshot& snap) {
  for (auto it = joins_by_.begin(); it != joins_by_.end();) {
    if (snap.find_port_guid(it->first).valid()) {
      ++it;
      continue;
    }
    noted_total_ -= it->second.size();
    it = joins_by_.erase(it);
  }
  std::erase_if(created_by_,
                [&](const auto& kv) { return !snap.find_port_guid(kv.first).valid(); });
}

std::set<Lid> McGroupStore::take_dirty() {
  std::set<Lid> out;
  out.swap(dirty_);
  return out;
}

}  // namespace ibsm::sa
