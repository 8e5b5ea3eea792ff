// Config -> partitions with their final P_Keys, the ordered membership rules the
// planner applies to a fabric, and the multicast groups the SM pre-creates.
// Follows osm_prtn.c/osm_prtn_config.c: the implicit Default rule comes first;
// statements with the same P_Key are merged (first name kept); a statement without
// P_Key reuses a partition of the same name or takes the lowest unused value from
// 0x0001; groups are created in file order and the first definition of an MGID wins.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "partitions/diagnostic.hpp"
#include "partitions/model.hpp"

namespace ibsm::partitions {

struct ResolveOptions {
  bool qos = false;  // OpenSM forces the partitions' SL to 0 unless QoS is on
  // Partitions that got an automatic P_Key in the previous load, by name: keeps
  // them stable across reloads (OpenSM finds them in its partition table).
  std::map<std::string, std::uint16_t> previous_auto_pkeys;
};

struct ResolvedPartition {
  std::string name;
  std::uint16_t pkey = 0;  // 15 bits
  std::uint8_t sl = 0;
  bool auto_pkey = false;
  bool ipoib = false;
};

// One "these ports get this membership" step; the planner applies them in order.
struct MemberRule {
  std::size_t partition = 0;  // index into ResolvedConfig::partitions
  MemberKind kind = MemberKind::kAll;
  std::uint64_t guid = 0;
  Membership membership = Membership::kLimited;
  bool indx0 = false;
  bool implicit = false;  // the implicit Default rule
};

// A multicast group the SM creates from the configuration.
struct GroupSpec {
  Gid mgid{};
  std::size_t partition = 0;
  std::uint16_t pkey = 0;  // with the full-member bit, as in MCMemberRecord
  std::uint8_t mtu = kDefaultMtu;
  std::uint8_t rate = kDefaultRate;
  std::uint8_t sl = 0;
  std::uint8_t scope = kDefaultScope;
  std::uint32_t qkey = 0;
  std::uint8_t tclass = 0;
  std::uint32_t flow_label = 0;
  bool broadcast = false;  // the partition's IPoIB broadcast group
  SourceLoc loc;
  bool operator==(const GroupSpec&) const = default;
};

struct ResolvedConfig {
  std::vector<ResolvedPartition> partitions;  // creation order; [0] is Default 0x7fff
  std::vector<MemberRule> rules;
  std::vector<GroupSpec> groups;  // creation order (= MLID order on a fresh SM)
  std::vector<Diagnostic> diagnostics;
  // For each Config statement, the index of its partition (SIZE_MAX if it had none).
  std::vector<std::size_t> statement_partition;

  const ResolvedPartition* find(std::uint16_t pkey) const;
  std::map<std::string, std::uint16_t> auto_pkeys() const;
};

ResolvedConfig resolve(const Config& config, const ResolveOptions& options = {});

}  // namespace ibsm::partitions
