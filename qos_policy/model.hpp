// The QoS policy file as read (OpenSM 3.3.23 doc/QoS_management_in_OpenSM.txt): port
// groups, qos-setup scopes, QoS levels and match rules, with the qos-ulps shorthand
// already turned into match rules and levels the way OpenSM expands it. Every item
// keeps where it was written, for messages and for the check mode.
//
// Nothing here depends on the fabric: port groups keep what names their members (GUID
// ranges, port names, partitions, node types); compile.hpp resolves them against a
// fabric.
#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ibsm::qos_policy {

struct SourcePos {
  unsigned line = 0;
  unsigned column = 0;
};

// An inclusive range; lists of them are kept sorted with overlapping and adjacent
// ranges merged (OpenSM __sort_reduce_rangearr), so a lookup is a binary search.
struct Range {
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;
  bool operator==(const Range&) const = default;
};
using Ranges = std::vector<Range>;

void normalize(Ranges& r);
bool contains(const Ranges& r, std::uint64_t v);

// Node-type bits of a port group (node-type: CA, SWITCH, ROUTER; ALL is all three).
inline constexpr std::uint8_t kTypeCa = 1;
inline constexpr std::uint8_t kTypeSwitch = 2;
inline constexpr std::uint8_t kTypeRouter = 4;

struct PortGroup {
  std::string name;  // compared case-insensitively
  std::string use;
  Ranges guids;                         // port-guid (only GUIDs of ports in the fabric count)
  std::vector<std::string> port_names;  // port-name: "NodeDescription/P<num>"
  Ranges pkeys;                         // pkey: members of these partitions (15-bit)
  std::vector<std::string> partitions;  // partition: members of the named partitions
  std::uint8_t node_types = 0;
  bool self = false;       // node-type SELF: the SM's own port
  bool generated = false;  // made from a qos-ulps rule (_SRP_Targets_ and friends)
  SourcePos pos;
};

// qos-setup. OpenSM parses this section and ignores it; ibsm programs it
// (docs/qos-policy.md).
struct VlArbScope {
  std::vector<std::string> groups;  // group: ports of these groups
  std::vector<std::string> across;  // across: switch ports facing these groups
  std::vector<std::pair<std::uint64_t, std::uint64_t>> high, low;  // VL:weight
  std::optional<std::uint64_t> high_limit;
  SourcePos pos;
};

struct Sl2VlScope {
  std::vector<std::string> groups;
  std::vector<std::string> across_from, across_to;
  std::bitset<128> from, to;  // switch input / output ports (none named: all)
  bool from_set = false, to_set = false;
  std::array<std::uint8_t, 16> table{};
  SourcePos pos;
};

struct Level {
  std::string name;
  std::string use;
  std::optional<std::uint8_t> sl;
  std::optional<std::uint8_t> mtu_limit;
  std::optional<std::uint8_t> rate_limit;
  std::optional<std::uint8_t> packet_life;
  Ranges path_bits;
  Ranges pkeys;            // 15-bit
  bool generated = false;  // a qos-ulps SL (SimpleQoSLevel_SL<n>, SimpleQoSLevel_DEFAULT)
  SourcePos pos;
};

struct MatchRule {
  std::string use;
  Ranges qos_class;
  Ranges service_id;
  Ranges pkey;                                   // 15-bit
  std::vector<std::string> source, destination;  // group names as written
  std::string level_name;
  SourcePos pos, level_pos;
  // Resolved by the parser's last step (indexes into Policy::groups / levels).
  std::vector<std::size_t> source_groups, destination_groups;
  std::size_t level = 0;
  std::string ulp;  // the qos-ulps line it came from, empty for qos-match-rules
};

// IPoIB rules are checked against the fabric's partitions (OpenSM __validate_pkeys):
// each P_Key must have a partition with at least two full members.
struct IpoibCheck {
  Ranges pkeys;
  SourcePos pos;
};

struct Policy {
  std::vector<PortGroup> groups;
  std::vector<VlArbScope> vlarb;
  std::vector<Sl2VlScope> sl2vl;
  std::vector<Level> levels;
  std::vector<MatchRule> rules;  // qos-match-rules in order, then the qos-ulps rules
  std::size_t default_level = 0;
  std::vector<IpoibCheck> ipoib_checks;
  // P_Keys named by match rules (warned about when no partition has them).
  std::vector<std::pair<Ranges, SourcePos>> rule_pkeys;
};

// qos-ulps constants (OpenSM osm_qos_policy.h).
inline constexpr std::uint64_t kSdpServiceId = 0x0000000000010000ull;
inline constexpr std::uint64_t kRdsServiceId = 0x0000000001060000ull;
inline constexpr std::uint64_t kRdsPort = 0x48CA;
inline constexpr std::uint64_t kIserServiceId = 0x0000000001060000ull;
inline constexpr std::uint64_t kIserPort = 0x0CBC;
inline constexpr std::uint16_t kDefaultPKey = 0x7fff;
inline constexpr unsigned kMaxSwitchPorts = 128;

}  // namespace ibsm::qos_policy
