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
#include <string>
#include <unordered_map>
#include <vector>

#include "mad/attr/node_info.hpp"
#include "mad/attr/port_info.hpp"
#include "mad/attr/switch_info.hpp"
#include "mad/types.hpp"

namespace ibsm::sa {

using mad::Guid;
using mad::Lid;
using mad::PortNum;
using Gid = std::array<std::uint8_t, 16>;

inline constexpr std::uint32_t kNone = UINT32_MAX;

struct PortRef {
  std::uint32_t node = kNone;
  PortNum port = 0;
  bool valid() const { return node != kNone; }
  bool operator==(const PortRef&) const = default;
};

struct SnapPort {
  PortNum num = 0;
  bool present = false;  // PortInfo read in the sweep
  Guid guid = 0;         // port GUID (switch ports: the switch's port-0 GUID)
  mad::PortInfo info;    // as the port holds it after programming
  std::vector<std::uint16_t> pkeys;  // P_Key table, index order (with membership bit)
  PortRef peer;                      // the port at the other end of the link
  Lid lid = 0;                       // end ports and switch port 0
  std::uint8_t lmc = 0;
};

struct SnapNode {
  mad::NodeInfo info;
  std::string description;              // NodeDescription, up to 64 bytes
  std::vector<SnapPort> ports;          // index = port number (CAs: [0] unused)
  std::optional<mad::SwitchInfo> switch_info;
  std::vector<PortNum> lft;             // switches: egress port by LID (0xFF: none)
  std::vector<std::uint16_t> mft;       // switches: port mask words, 16 per MLID block row
                                        // (index (mlid-0xC000)*positions + position); empty: none
  std::uint32_t index = 0;

  bool is_switch() const { return info.node_type == mad::NodeType::kSwitch; }
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

  // Lookups, filled by index().
  std::vector<PortRef> by_lid;  // unicast LIDs 0..0xBFFF (every LID of an LMC range)
  std::unordered_map<Guid, PortRef> by_port_guid;
  std::unordered_map<Guid, std::uint32_t> by_node_guid;

  // Builds the lookup tables from nodes (call once, before publishing).
  void index();

  const SnapNode& node(PortRef r) const { return nodes[r.node]; }
  const SnapPort& port(PortRef r) const { return nodes[r.node].ports[r.port]; }
  PortRef find_lid(Lid lid) const {
    return lid < by_lid.size() ? by_lid[lid] : PortRef{};
  }
  PortRef find_port_guid(Guid g) const {
    auto it = by_port_guid.find(g);
    return it == by_port_guid.end() ? PortRef{} : it->second;
  }
  // The LID-holding port (end port, or switch port 0) a port's LID belongs to.
  PortRef lid_holder(PortRef r) const {
    return nodes[r.node].is_switch() ? PortRef{r.node, 0} : r;
  }
  std::size_t memory_bytes() const;  // approximate, for the log and benchmarks
};

using SnapshotPtr = std::shared_ptr<const Snapshot>;

}  // namespace ibsm::sa
