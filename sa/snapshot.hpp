// The SA's view of the subnet: an immutable copy of what the last completed heavy
// sweep left (nodes, ports with their PortInfo and P_Keys, links, LIDs, LFTs,
// multicast groups, SMs). The SM builds one after each sweep and publishes it as a
// shared_ptr<const Snapshot>; every SA query is answered from one snapshot, so no
// answer ever mixes two sweeps, and a sweep in progress is never seen.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "mad/attr/node_info.hpp"
#include "mad/attr/port_info.hpp"
#include "mad/attr/switch_info.hpp"
#include "mad/types.hpp"
#include "qos_policy/compile.hpp"
#include "sa/prefix_routes.hpp"

namespace ibsm::sa {

using mad::Guid;
using mad::Lid;
using mad::PortNum;
using Gid = std::array<std::uint8_t, 16>;

// The low 64 bits of a GID, its interface ID (IBA 4.1.1): the port GUID for the GIDs the
// SM assigns, an alias GUID (GUIDInfo) otherwise. Big-endian on the wire.
inline Guid gid_interface_id(std::span<const std::uint8_t, 16> g) {
  Guid v = 0;
  for (std::size_t i = 8; i < 16; ++i)
    v = (v << 8) | g[i];
  return v;
}

inline constexpr std::uint32_t kNone = UINT32_MAX;

struct PortRef {
  std::uint32_t node = kNone;
  PortNum port = 0;
  bool valid() const { return node != kNone; }
  bool operator==(const PortRef&) const = default;
};

// The VL tables of one port as the SM last read or programmed them (sm/tables/port_tables.hpp).
// Shared by the snapshots that carry it and never changed once published.
struct PortVlTables {
  // SLtoVLMappingTable (IBA 14.2.5.8) in the record's 64-bit form (SL0 in bits 63-60):
  // a switch port's tables as output port, indexed by input port 0..NumPorts; a CA
  // port's single table at [0]. Tables the SM does not know read as 0, as in OpenSM.
  std::vector<std::uint64_t> sl2vl;
  // VLArbitrationTable blocks 1-4 (IBA 14.2.5.9) at [0..3], as on the wire.
  std::array<std::array<std::uint8_t, 64>, 4> vlarb{};
};

struct SnapPort {
  PortNum num = 0;
  bool present = false;              // PortInfo read in the sweep
  Guid guid = 0;                     // port GUID (switch ports: the switch's port-0 GUID)
  mad::PortInfo info;                // as the port holds it after programming
  std::vector<std::uint16_t> pkeys;  // P_Key table, index order (with membership bit)
  PortRef peer;                      // the port at the other end of the link
  Lid lid = 0;                       // end ports and switch port 0
  std::uint8_t lmc = 0;
  // SL2VL and VLArbitration tables; null: never read (their records read 0).
  std::shared_ptr<const PortVlTables> vl_tables;
};

struct SnapNode {
  mad::NodeInfo info;
  std::string description;      // NodeDescription, up to 64 bytes
  std::vector<SnapPort> ports;  // index = port number (CAs: [0] unused)
  std::optional<mad::SwitchInfo> switch_info;
  std::vector<PortNum> lft;  // switches: egress port by LID (0xFF: none)
  // Switches: the multicast forwarding table (IBA 14.2.5.11) as the switch holds it
  // once programmed. mft[(mlid - 0xC000) * mft_positions() + position] is the port
  // mask of that MLID for ports 16*position .. 16*position+15 (bit i = port
  // 16*position+i, port 0 included). It covers whole blocks of 32 MLIDs, from MLID
  // 0xC000 up to the last block in use (OpenSM's max_block_in_use): each block in it
  // is one MFTRecord per position (sa/records/mft_record.cpp); empty: no MLID used.
  std::vector<std::uint16_t> mft;
  std::uint32_t index = 0;

  bool is_switch() const { return info.node_type == mad::NodeType::kSwitch; }
  // Port-mask words per MLID: ports 0..NumPorts in groups of 16 (OpenSM's max_position+1).
  std::size_t mft_positions() const { return (std::size_t{info.num_ports} + 1 + 15) / 16; }
  Guid guid() const { return info.node_guid; }
};

// A multicast group as the SA answers MCMemberRecord queries about it.
struct SnapGroup {
  Gid mgid{};
  Lid mlid = 0;
  std::uint32_t qkey = 0;
  std::uint16_t pkey = 0;  // with the full-member bit
  std::uint8_t mtu = 0;    // enum, selector not included
  std::uint8_t rate = 0;
  std::uint8_t packet_life = 0;
  std::uint8_t sl = 0;
  std::uint32_t flow_label = 0;
  std::uint8_t hop_limit = 0;
  std::uint8_t tclass = 0;
  std::uint8_t scope = 2;
  bool well_known = false;  // created by the SM (partitions.conf), not by a join
  struct Member {
    Gid port_gid{};
    std::uint8_t join_state = 0;
    bool proxy = false;
  };
  std::vector<Member> members;
};

// A partition of partitions.conf as paths in it need it: the SL their PathRecords
// carry (`sl=`, OpenSM's prtn->sl; forced to 0 unless QoS is on).
struct SnapPartition {
  std::uint16_t pkey = 0;  // base P_Key (15 bits)
  std::uint8_t sl = 0;
};

// The SL a routing engine assigns to each path (OpenSM's path_sl hook: LASH, DFSSSP,
// torus-2QoS and Nue spread paths over SLs to stay deadlock free). Routing engines
// that need it fill it when the snapshot is built; it stays empty otherwise and paths
// then take the requested or the partition's SL.
//
// Rows are path sources, columns destination LIDs. dfsssp has one row per switch: the
// end ports of a switch share its forwarding path, hence its SL (routing::PathSls), so
// the table is switches x LIDs bytes, shared by every snapshot of one routing result
// rather than copied; only the small LID -> row index is per snapshot.
struct PathSlTable {
  static constexpr std::uint32_t kNoRow = UINT32_MAX;
  std::vector<std::uint32_t> row_of_lid;                // by source LID: its row, kNoRow if none
  std::size_t columns = 0;                              // row length: destination LIDs 0..columns-1
  std::shared_ptr<const std::vector<std::uint8_t>> sl;  // [row * columns + dlid]
  std::uint8_t requester_bits = 0;  // SL bits the request decides (routing::PathSls)

  bool empty() const { return !sl || sl->empty(); }
  // The engine's SL for the path from `slid` to `dlid`, or nullopt when it has none.
  std::optional<std::uint8_t> find(Lid slid, Lid dlid) const {
    if (!sl || slid >= row_of_lid.size() || dlid >= columns) return std::nullopt;
    const std::uint32_t row = row_of_lid[slid];
    if (row == kNoRow) return std::nullopt;
    const std::size_t at = std::size_t{row} * columns + dlid;
    if (at >= sl->size()) return std::nullopt;
    return (*sl)[at];
  }
};

struct PathTables;  // sa/path_resolver.hpp: what PathRecord resolution reads per port

// An SM the master knows of (itself first), for SMInfoRecord.
struct SnapSm {
  PortRef port;
  Lid lid = 0;
  Guid guid = 0;
  std::uint64_t sm_key = 0;
  std::uint32_t act_count = 0;
  std::uint8_t priority = 0;
  mad::SmState state = mad::SmState::kNotActive;
};

struct Snapshot {
  std::uint64_t generation = 0;  // counts publications
  std::uint64_t subnet_prefix = 0xfe80000000000000ull;
  PortRef sm_port;
  Lid sm_lid = 0;
  std::vector<SnapNode> nodes;
  std::vector<SnapGroup> groups;
  std::vector<SnapSm> sms;
  std::vector<SnapPartition> partitions;  // sorted by P_Key (partitions.conf)
  PathSlTable path_sl;                    // filled by routing engines with per-path SLs
  // The QoS policy file (qos_policy_file) compiled for this fabric, its ports indexed
  // like PathTables::ports (flat port index); null: no policy (or qos off). Set by the
  // SM after index(); shared between snapshots of the same fabric and policy.
  std::shared_ptr<const qos_policy::CompiledPolicy> qos_policy;
  // PathRecords to other subnets (prefix_routes_file, sa/prefix_routes.hpp): the routes
  // and the router port GUIDs of this fabric, sorted. Null routes: off-subnet fails.
  std::shared_ptr<const PrefixRoutes> prefix_routes;
  std::vector<Guid> router_ports;

  // Lookups, filled by index().
  // Unicast LIDs 0 up to the highest in use (every LID of an LMC range).
  std::vector<PortRef> by_lid;
  std::unordered_map<Guid, PortRef> by_port_guid;
  std::unordered_map<Guid, std::uint32_t> by_node_guid;
  // Per-port MTU, rate, links and sorted P_Keys for path resolution; index-based, so
  // a copy of the snapshot may share it as long as its nodes and ports are the same.
  std::shared_ptr<const PathTables> path_tables;

  // Builds the lookup tables from nodes (call once, before publishing).
  void index();

  const SnapNode& node(PortRef r) const { return nodes[r.node]; }
  const SnapPort& port(PortRef r) const { return nodes[r.node].ports[r.port]; }
  PortRef find_lid(Lid lid) const { return lid < by_lid.size() ? by_lid[lid] : PortRef{}; }
  PortRef find_port_guid(Guid g) const {
    auto it = by_port_guid.find(g);
    return it == by_port_guid.end() ? PortRef{} : it->second;
  }
  // The LID-holding port (end port, or switch port 0) a port's LID belongs to.
  PortRef lid_holder(PortRef r) const { return nodes[r.node].is_switch() ? PortRef{r.node, 0} : r; }
  std::size_t memory_bytes() const;  // approximate, for the log and benchmarks
};

using SnapshotPtr = std::shared_ptr<const Snapshot>;
// A snapshot being built, or the SA's own handle on the one it publishes.
using MutableSnapshotPtr = std::shared_ptr<Snapshot>;

// What the reports about ports that leave with the next snapshot need of this one
// (sa/events.cpp: which ports held a GID, and their P_Key tables): its nodes'
// NodeInfo and LID-holding ports (GUID, LID, P_Key table), found by port GUID. No
// LFTs, MFTs, links, PortInfo, path tables or groups: a fraction of the whole.
SnapshotPtr port_presence(const Snapshot& s);

}  // namespace ibsm::sa
