// The multicast groups the SA knows, with their members (IBA 15.2.5.17,
// MCMemberRecord): the groups partitions.conf pre-creates (handed over by the SM
// at every publish, with their stable MLIDs) and the groups clients create by
// joining. The SA's MCMemberRecord handler changes it (joins, leaves) and reads it
// (Get/GetTable); the SM reads it to build a spanning tree per MLID and program the
// switches' MFTs, recomputing only the MLIDs marked dirty.
//
// Single-threaded: lives in SaState on the SM's thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

#include "sa/snapshot.hpp"

namespace ibsm::sa {

// JoinState bits (IBA 15.2.5.17, table 210; SendOnlyFullMember from IBA 1.3).
namespace join {
inline constexpr std::uint8_t kFull = 0x1;
inline constexpr std::uint8_t kNonMember = 0x2;
inline constexpr std::uint8_t kSendOnlyNonMember = 0x4;
inline constexpr std::uint8_t kSendOnlyFull = 0x8;
}  // namespace join

struct McMember {
  Gid port_gid{};      // as the join named it (an alias GID stays an alias)
  Guid port_guid = 0;  // the base port GUID it resolved to
  std::uint8_t join_state = 0;
  bool proxy = false;
  Guid joined_by = 0;  // the port whose join made it a member (its limit counts it)
};

// A group's members in join order, found by the interface ID of their PortGID (its
// GUID half, as OpenSM keys members) through an index: a join storm of thousands
// costs a lookup per join, not a scan of the members. Iteration is read-only; a
// member's JoinState and proxy flag change through find(), never its PortGID.
class McMembers {
 public:
  using value_type = McMember;
  using const_iterator = std::vector<McMember>::const_iterator;
  const_iterator begin() const { return list_.begin(); }
  const_iterator end() const { return list_.end(); }
  std::size_t size() const { return list_.size(); }
  bool empty() const { return list_.empty(); }
  const McMember& operator[](std::size_t i) const { return list_[i]; }

  // The (first) member whose PortGID has this interface ID, or nullptr.
  McMember* find(Guid interface_id);
  const McMember* find(Guid interface_id) const;
  McMember& push_back(const McMember& m);
  // Removes the members `pred` selects and rebuilds the index (O(members), as the
  // erase itself); how many went.
  template <class Pred>
  std::size_t erase_if(Pred pred) {
    const std::size_t n = std::erase_if(list_, pred);
    if (n != 0) reindex();
    return n;
  }
  void clear() {
    list_.clear();
    at_.clear();
  }

 private:
  void reindex();
  std::vector<McMember> list_;
  std::unordered_map<Guid, std::uint32_t> at_;  // interface ID -> index in list_
};

struct McGroupRec {
  Gid mgid{};
  Lid mlid = 0;
  std::uint32_t qkey = 0;
  std::uint16_t pkey = 0;  // with the full-member bit
  std::uint8_t mtu = 0;    // enums, selectors not included
  std::uint8_t rate = 0;
  std::uint8_t packet_life = 0;
  std::uint8_t sl = 0;
  std::uint32_t flow_label = 0;
  std::uint8_t hop_limit = 0;
  std::uint8_t tclass = 0;
  std::uint8_t scope = 2;
  bool well_known = false;  // pre-created by the SM: never deleted by a leave
  Guid creator = 0;         // the port whose join created it (0: configured)
  McMembers members;

  // Full or SendOnlyFull members keep a created group alive (IBA 15.2.5.17.2).
  bool has_full_member() const;
};

class McGroupStore {
 public:
  // The groups partitions.conf creates, with their MLIDs (from the SM's partition
  // manager). Groups that stay keep their members; groups no longer configured
  // lose their well-known mark and live on while they have full members.
  void apply_configured(const std::vector<SnapGroup>& configured);
  // Highest MLID the switches support (0xC000 + smallest MulticastFDBCap - 1).
  void set_mlid_limit(Lid last) { mlid_last_ = last; }

  const McGroupRec* find(const Gid& mgid) const;
  McGroupRec* find(const Gid& mgid);
  const std::map<Gid, McGroupRec>& groups() const { return groups_; }
  // Groups sharing an MLID (IPv6 solicited-node consolidation shares one).
  std::vector<const McGroupRec*> by_mlid(Lid mlid) const;

  // Creates a group with a free MLID (the requested one if free); nullptr when
  // no MLID is left. Never leaks: erase() gives the MLID back.
  McGroupRec* create(McGroupRec group, std::optional<Lid> wanted_mlid = {});
  // Creates a group on an MLID other groups already use (IPv6 solicited-node
  // consolidation, consolidate_ipv6_snm_req); nullptr when `mlid` is not in use.
  McGroupRec* create_shared(McGroupRec group, Lid mlid);
  void erase(const Gid& mgid);

  // Members of ports that left the fabric are removed (and empty created groups
  // deleted); returns the MGIDs of groups deleted that way (for trap 67).
  std::vector<Gid> drop_absent_ports(const Snapshot& snap);

  // MLIDs whose member set changed since the SM last took them.
  void mark_dirty(Lid mlid) {
    dirty_.insert(mlid);
    ++changes_seen_;
  }
  bool has_dirty() const { return !dirty_.empty(); }
  // Every mark_dirty so far: the SM paces its passes by when changes stop coming.
  std::uint64_t changes_seen() const { return changes_seen_; }
  std::set<Lid> take_dirty();
  std::size_t mlids_in_use() const { return mlid_users_.size(); }

  // Traps 66/67 (IBA 13.4.8.3, o14-12.1.11): groups whose full-member count went
  // 0→1 or back to 0, queued by the SA's join/leave handler and delivered by the
  // SaServer to subscribers once the handler returns.
  struct Change {
    bool created = false;
    Gid mgid{};
    std::uint16_t pkey = 0;
  };
  void note_change(bool created, const McGroupRec& g) {
    changes_.push_back({created, g.mgid, g.pkey});
  }
  std::vector<Change> take_changes() {
    std::vector<Change> out;
    out.swap(changes_);
    return out;
  }
  // A counter for SA-assigned MGIDs (sa/mcast/join_rules.hpp sa_assigned_mgid).
  std::uint32_t next_mgid_counter() { return mgid_counter_++; }

  // What each port's joins hold, for the limits of sa/limits.hpp. The handler
  // notes every membership a join adds and every group it creates; what leaves,
  // port removal and group deletion take away is found lazily (a noted item that
  // is no longer in the store, or no longer the port's, does not count), so no
  // path that removes members has to report it.
  void note_membership(Guid requester, const Gid& mgid, Guid member_id);
  void note_created(Guid requester, const Gid& mgid);
  // Memberships a port's joins made that still exist (proxy joins count for the
  // port that sent them); groups it created that still exist.
  std::size_t memberships_of(Guid requester);
  std::size_t groups_created_by(Guid requester);
  // Memberships made by joins, all ports (an exact count when near `cap`, an
  // upper bound below it, so that it costs little while far from the limit).
  std::size_t memberships_total(std::size_t cap);
  // Forgets the notes of ports not in `snap` (their memberships went with them).
  void forget_absent_requesters(const Snapshot& snap);

 private:
  struct Noted {
    Gid mgid{};
    Guid member_id = 0;
  };
  bool still_held(Guid requester, const Noted& n) const;
  std::unordered_map<Guid, std::vector<Noted>> joins_by_;
  std::unordered_map<Guid, std::vector<Gid>> created_by_;
  std::size_t noted_total_ = 0;  // entries in joins_by_, stale ones included
  std::uint64_t pruned_at_changes_ = ~std::uint64_t{0};

  std::map<Gid, McGroupRec> groups_;
  std::map<Lid, unsigned> mlid_users_;  // groups per MLID
  std::set<Lid> dirty_;
  std::uint64_t changes_seen_ = 0;
  Lid mlid_last_ = 0xFFFE;
  std::vector<Change> changes_;
  std::uint32_t mgid_counter_ = 0;
};

}  // namespace ibsm::sa
