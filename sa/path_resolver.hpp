// Path resolution for PathRecord, MultiPathRecord and TraceRecord (IBA 15.2.5.16,
// 15.2.5.20, 15.2.5.21), with OpenSM's rules (osm_sa_path_record.c,
// osm_sa_multipath_record.c): walk the programmed LFTs from the source port to the
// destination LID, take the smallest MTUCap and the slowest active rate on the way,
// apply the request's selectors, choose the P_Key and the SL, and check that the path
// back exists.
//
// Everything a walk reads per port is precomputed once per snapshot (PathTables,
// built by Snapshot::index()), so resolving a path allocates nothing and touches
// one small record per port plus one LFT entry per switch.
//
// The protocol rules are in path_rules.cpp, the tables are built in path_tables.cpp,
// the resolver itself is path_resolver.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "mad/attr/port_info.hpp"
#include "sa/settings.hpp"
#include "sa/snapshot.hpp"

namespace ibsm::sa {

// ---------------------------------------------------------------------------
// Protocol rules (pure functions).

// MTU and rate enumerations (IBA 15.2.5.16 tables 205/206, extended by IBA 1.3/1.5
// and for XDR by 1.7: 25 = 1600 Gb/s, as Linux's IB_RATE_1600_GBPS).
inline constexpr std::uint8_t kMtuMin = 1;     // 256
inline constexpr std::uint8_t kMtuMax = 5;     // 4096
inline constexpr std::uint8_t kRateMin = 2;    // 2.5 Gb/s
inline constexpr std::uint8_t kRate28 = 19;    // 28 Gb/s: first of the 2x/HDR-era rates
inline constexpr std::uint8_t kRate300 = 18;   // 300 Gb/s: last rate of IBA 1.2.1
inline constexpr std::uint8_t kRate1200 = 24;  // 1200 Gb/s: NDR 12x
inline constexpr std::uint8_t kRateMax = 25;   // 1600 Gb/s: XDR 8x
inline constexpr unsigned kMaxPathHops = 64;   // OpenSM's MAX_HOPS: switches on a path

// Selector values of MTU, Rate and PacketLifeTime (IBA 15.2.5.16 table 204).
namespace selector {
inline constexpr std::uint8_t kGreater = 0;
inline constexpr std::uint8_t kLess = 1;
inline constexpr std::uint8_t kExactly = 2;
inline constexpr std::uint8_t kBest = 3;  // largest MTU/rate, smallest lifetime
}  // namespace selector

inline bool mtu_valid(std::uint8_t mtu) {
  return mtu >= kMtuMin && mtu <= kMtuMax;
}
inline bool rate_valid(std::uint8_t rate) {
  return rate >= kRateMin && rate <= kRateMax;
}

// The rate enumeration is not ordered by bandwidth (IBA added values over time):
// rate_rank orders them (1 = 2.5 Gb/s ... 24 = 1600 Gb/s; 0 for a non-rate),
// rate_of_rank inverts it.
std::uint8_t rate_rank(std::uint8_t rate);
std::uint8_t rate_of_rank(std::uint8_t rank);
// The next slower rate than `rate`, 0 when there is none (OpenSM ib_path_rate_get_prev).
std::uint8_t rate_below(std::uint8_t rate);

// A port's rate: LinkWidthActive x LinkSpeedActive, or LinkSpeedExtActive when the
// port has extended speeds (IBA 14.2.5.6, CapabilityMask.IsExtendedSpeedsSupported),
// or LinkSpeedExtActive2 (XDR) when it has those (CapabilityMask2.IsExtendedSpeeds2
// Supported). A width or speed the table does not know counts as 1x / 2.5 Gb/s, as
// in OpenSM. XDR 12x (2400 Gb/s) has no rate code yet: it reports 1600.
std::uint8_t port_rate(const mad::PortInfo& pi, bool extended, bool extended2 = false);
inline constexpr std::uint32_t kCapExtendedSpeeds = 1u << 14;  // PortInfo.CapabilityMask
inline constexpr std::uint32_t kCapHasCapMask2 = 1u << 15;
inline constexpr std::uint16_t kCap2Width2x = 1u << 4;  // PortInfo.CapabilityMask2
inline constexpr std::uint16_t kCap2SpeedHdr = 1u << 5;
inline constexpr std::uint16_t kCap2SpeedNdr = 1u << 10;
inline constexpr std::uint16_t kCap2ExtendedSpeeds2 = 1u << 11;
inline constexpr std::uint16_t kCap2SpeedXdr = 1u << 12;
// Whether a port's (a switch's: port 0's) LinkSpeedExt*2 fields are valid.
inline bool extended_speeds2(const mad::PortInfo& caps) {
  return (caps.capability_mask & kCapHasCapMask2) != 0 &&
         (caps.capability_mask2 & kCap2ExtendedSpeeds2) != 0;
}

// max_rate_enum: rates above `limit` are lowered to the fastest rate not above it by
// either bandwidth or enum value (OpenSM ib_path_get_reduced_rate).
std::uint8_t limit_rate(std::uint8_t rate, std::uint8_t limit);
// A 2x-only or HDR/NDR/XDR-only rate reported to a port that cannot do it is lowered
// to the rate it can (OpenSM ib_path_rate_2x_hdr_fixups; 800 and 1600 Gb/s also for
// XDR, which OpenSM does not know).
std::uint8_t rate_2x_hdr_fixup(const mad::PortInfo& pi, std::uint8_t rate);

// Selectors (IBA 15.2.5.16, OpenSM's reading): `have` is what the path offers, `want`
// what the request names. The result is the value the record carries, or nullopt when
// the path does not qualify. ">" needs more; "<" lowers to one step below `want`;
// "=" needs at least `want` (the rate exactly `want`) and reports `want`; "best" keeps
// `have`.
std::optional<std::uint8_t> select_mtu(std::uint8_t have, std::uint8_t sel, std::uint8_t want);
std::optional<std::uint8_t> select_rate(std::uint8_t have, std::uint8_t sel, std::uint8_t want);
std::optional<std::uint8_t> select_life(std::uint8_t have, std::uint8_t sel, std::uint8_t want);

// GID prefixes a request may name for a port of this subnet (IBA 4.1.1: fe80::/10 is
// link-local and always means "this subnet").
inline bool gid_prefix_link_local(std::uint64_t prefix) {
  return (prefix & 0xFFC0000000000000ull) == 0xFE80000000000000ull;
}

// ---------------------------------------------------------------------------
// Precomputed per-snapshot tables.

struct PathTables {
  struct Port {
    Guid guid = 0;               // LID holders: the port GUID
    std::uint32_t peer = kNone;  // flat index of the port at the other end of the link
    std::uint32_t node = 0;
    std::uint32_t pkey_begin = 0;  // LID holders: sorted P_Keys in `pkeys`
    std::uint16_t pkey_count = 0;
    Lid lid = 0;  // LID holders: base LID
    std::uint8_t lmc = 0;
    std::uint8_t mtu = 0;        // MTUCap
    std::uint8_t rate_rank = 0;  // rank of the port's rate (switch ports: port 0 decides
                                 // whether extended speeds count, as OpenSM reads them)
    PortNum num = 0;
    bool present = false;  // PortInfo read in the sweep
    bool holder = false;   // an end port or switch port 0 with a GUID
  };
  // A non-zero P_Key table entry. `order` is OpenSM's search order: its tables are
  // maps keyed by the network-order P_Key read as a host integer, so on x86 the low
  // byte sorts first and "the first shared P_Key" is the first in that order.
  // `first`: the entry a table without allow_both_pkeys keeps for its base (the
  // lowest index), the others only count with allow_both_pkeys.
  struct PKey {
    std::uint16_t order = 0;
    std::uint16_t value = 0;  // with the membership bit
    bool first = true;
  };
  // The `order` of a P_Key base: its two bytes swapped.
  static std::uint16_t pkey_order(std::uint16_t base) {
    return static_cast<std::uint16_t>((base << 8) | (base >> 8));
  }

  // What a walk reads when it leaves through a port: the port's own MTU and rate and
  // those of the port at the other end, joined, so that a hop costs one LFT byte and
  // one 12-byte entry.
  struct Link {
    std::uint32_t next_node = kNone;  // node of the port at the other end; kNone: no link
    PortNum next_port = 0;
    std::uint8_t self_mtu = 0;
    std::uint8_t self_rank = 0;
    std::uint8_t peer_mtu = 0;
    std::uint8_t peer_rank = 0;
    bool present = false;
  };

  std::vector<std::uint32_t> node_base;  // flat index of port 0 of each node
  std::vector<std::uint8_t> is_switch;   // by node
  std::vector<Link> links;               // flat, as `ports`
  // The switches' LFTs cut to the LIDs in use and laid end to end in one array: a hop
  // reads one byte at a computed offset, where going through each SnapNode's vector
  // costs two dependent cache misses (the node, then its table).
  std::vector<std::uint32_t> lft_row;  // by node: offset of its LFT in `lft` (switches)
  std::size_t lft_stride = 0;          // highest LID in use + 1
  std::vector<PortNum> lft;            // 0xFF: no route
  std::vector<Port> ports;             // flat: node_base[n] + port number
  std::vector<PKey> pkeys;             // per LID holder, sorted by (order, table index)
  // LID holders in OpenSM's iteration order (its port-GUID map, keyed like the P_Keys),
  // for queries that leave an endpoint open.
  std::vector<std::uint32_t> endpoints;
  // Port GUID -> LID holder, open addressing (power-of-two size, linear probing): one
  // cache line per lookup where a node-based hash map costs several.
  struct GuidSlot {
    Guid guid = 0;  // 0: empty
    std::uint32_t fp = kNone;
  };
  std::vector<GuidSlot> by_guid;
  // Some known SL2VL table maps an SL to VL15 (drop): only then can a path's usable
  // SLs be fewer than 16, and only then does QoS need the slower walk that reads every
  // hop's table (PathResolver::one_way).
  bool sl2vl_drops = false;

  std::uint32_t flat(PortRef r) const { return node_base[r.node] + r.port; }
  // The egress port number a switch's LFT names for `lid` (0xFF: none).
  PortNum route(std::uint32_t node, Lid lid) const {
    return lid < lft_stride ? lft[lft_row[node] + lid] : PortNum{0xff};
  }
  // The flat index of that port, kNone when the LFT names none or a port that is not.
  std::uint32_t egress(std::uint32_t node, Lid lid) const {
    const std::uint32_t fp = node_base[node] + route(node, lid);
    return fp < node_base[node + 1] && links[fp].present ? fp : kNone;
  }
  // The LID holder with this port GUID, or an invalid PortRef.
  PortRef find_guid(Guid g) const {
    if (g == 0 || by_guid.empty()) return {};
    const std::size_t m = by_guid.size() - 1;
    for (std::size_t i = guid_hash(g) & m;; i = (i + 1) & m) {
      const GuidSlot& s = by_guid[i];
      if (s.guid == g) return PortRef{ports[s.fp].node, ports[s.fp].num};
      if (s.guid == 0) return {};
    }
  }
  static std::size_t guid_hash(Guid g) {
    return static_cast<std::size_t>((g * 0x9E3779B97F4A7C15ull) >> 20);
  }
  std::span<const PKey> pkeys_of(std::uint32_t fp) const {
    const Port& p = ports[fp];
    return {pkeys.data() + p.pkey_begin, p.pkey_count};
  }
  std::size_t bytes() const;
};

// Builds the tables from the snapshot's nodes (Snapshot::index() calls it).
std::shared_ptr<const PathTables> build_path_tables(const Snapshot& s);

// ---------------------------------------------------------------------------
// The resolver.

// The request's constraints on a path, from a PathRecord or a MultiPathRecord.
struct PathQuery {
  struct Selected {
    bool set = false;  // both the selector and the value bits were in the mask
    std::uint8_t sel = 0;
    std::uint8_t value = 0;
  };
  bool raw_traffic = false;  // RawTraffic selected and 1: any shared P_Key, reported as 0
  std::optional<std::uint16_t> pkey;
  std::optional<std::uint8_t> sl;
  Selected mtu, rate, life;
  bool reversible_required = false;  // Reversible selected and 1
  // What QoS policy match rules test (qos_policy/compile.hpp); each only when its
  // ComponentMask bits are set (ServiceID: both halves).
  std::optional<std::uint64_t> service_id;
  std::optional<std::uint16_t> qos_class;
};

// enable_quirks (OpenSM's only hardware quirk, in its PathRecord and MultiPathRecord
// handlers): Mellanox's Tavor HCA (DeviceID 23108, sold under four vendor IDs) runs
// faster with 1K packets, so a path with a Tavor at either end offers at most 1024
// bytes, unless the request asks for the largest MTU (selector 3) or for more than
// 1K (selector ">" or "=" with a value above 1024), which the limit would defeat.
bool is_tavor(const mad::NodeInfo& node);
bool tavor_mtu_limit_applies(const mad::NodeInfo& src, const mad::NodeInfo& dst,
                             const PathQuery::Selected& mtu);
inline constexpr std::uint8_t kTavorMtuLimit = 3;  // IBA MTU enum: 1024 bytes

// What one direction of a path offers (OpenSM's osm_path_parms_t).
struct PathParams {
  std::uint8_t mtu = 0;
  std::uint8_t rate = 0;
  std::uint8_t life = 0;
  std::uint16_t pkey = 0;
  std::uint8_t sl = 0;
  unsigned hops = 0;  // switches crossed
};

// A resolved path, ready to be written as a PathRecord.
struct ResolvedPath {
  PortRef src, dst;  // LID holders
  Lid slid = 0, dlid = 0;
  PathParams params;
  bool reversible = false;
  std::uint8_t preference = 0;
};

// One node on a path, for TraceRecord.
struct TraceHop {
  std::uint32_t node = 0;
  PortNum entry = 0;  // 0: the path starts here
  PortNum exit = 0;   // 0: the path ends here
  bool has_entry = false;
  bool has_exit = false;
};

class PathResolver {
 public:
  PathResolver(const Snapshot& snap, const SaSettings& settings);

  const PathTables& tables() const { return *t_; }
  const Snapshot& snapshot() const { return snap_; }

  // One direction from `src` to `dlid` of `dst` (OpenSM pr_rcv_get_path_parms).
  // `slid` is where the path starts, for the routing engine's SL.
  std::optional<PathParams> one_way(PortRef src, Lid slid, PortRef dst, Lid dlid,
                                    const PathQuery& q) const;

  // The path from `slid` of `src` to `dlid` of `dst`, with the reverse direction
  // checked (OpenSM pr_rcv_get_lid_pair_path): nullopt when it does not qualify.
  std::optional<ResolvedPath> resolve(PortRef src, Lid slid, PortRef dst, Lid dlid,
                                      const PathQuery& q, std::uint8_t preference) const;

  // The ports a path crosses, source to destination; empty when there is no route.
  std::vector<TraceHop> trace(PortRef src, PortRef dst, Lid dlid) const;

  // Partition rule for paths (OpenSM osm_port_share_pkey): the same port, a port
  // whose table was not read, or a shared P_Key with one side a full member.
  bool share_pkey(PortRef a, PortRef b) const;

  // The rate the record reports: max_rate_enum, or the 2x/HDR fix-ups for the source
  // (and, for a reversible path, the destination).
  std::uint8_t reported_rate(const ResolvedPath& p) const;

  // The SL of the partition with this P_Key (0 when partitions.conf has none).
  std::uint8_t partition_sl(std::uint16_t pkey) const;

 private:
  // A walk through the LFTs, one hop per step(), so that two walks can advance side
  // by side and their cache misses overlap.
  struct Walk {
    std::uint32_t cur = 0;  // flat index of the port the path leaves through
    std::uint32_t dst = 0;  // flat index of the port that ends it
    Lid dlid = 0;
    std::uint8_t mtu = 0;
    std::uint8_t rank = 0;
    unsigned hops = 0;
    enum class State : std::uint8_t { kRunning, kArrived, kFailed } state = State::kRunning;
  };
  template <class Visit>
  void begin(Walk& w, std::uint32_t src, std::uint32_t dst, Lid dlid, Visit& visit) const;
  template <class Visit>
  void step(Walk& w, Visit& visit) const;
  template <class Visit>
  bool walk(Walk& w, std::uint32_t src, std::uint32_t dst, Lid dlid, Visit& visit) const;
  // What a finished walk offers under the query's constraints (selectors, P_Key, SL).
  std::optional<PathParams> finish(const Walk& w, std::uint32_t src, std::uint32_t dst, Lid slid,
                                   Lid dlid, std::uint16_t valid_sls, const PathQuery& q) const;
  std::uint16_t common_pkey(std::uint32_t a, std::uint32_t b) const;
  // The smallest P_Key of a QoS level's ranges that a and b share (OpenSM
  // osm_qos_level_get_shared_pkey), 0 when none; returned without the membership bit.
  std::uint16_t level_pkey(std::uint32_t a, std::uint32_t b, const qos_policy::Ranges& r) const;
  bool share_this_pkey(std::uint32_t a, std::uint32_t b, std::uint16_t pkey) const;

  const Snapshot& snap_;
  const SaSettings& settings_;
  std::shared_ptr<const PathTables> own_;  // when the snapshot was not indexed
  const PathTables* t_ = nullptr;
  std::uint8_t rate_cap_ = 0;  // effective max_rate_enum, 0: none
};

// Writes a resolved path as a PathRecord (IBA 15.2.5.16, 64 bytes) the way OpenSM
// builds it (pr_rcv_build_pr): ServiceID, FlowLabel, TClass and QoSClass 0; HopLimit 0
// (paths never leave the subnet); MTU, Rate and PacketLifeTime with selector "exactly";
// byte 49 = Reversible (NumbPath 0). `sgid` is echoed when the request named one.
void write_path_record(std::span<std::uint8_t> rec, const PathResolver& r, const ResolvedPath& p,
                       const Gid* sgid);

}  // namespace ibsm::sa
