// The REST API's membership model: what the API added (ApiState, persisted by
// rest/state_file.hpp), what the admin's partitions.conf says (AdminPartitions, an input
// resolved to GUIDs by the SM), and the pure merge of both into the membership each P_Key
// gets. P_Keys are the 15-bit partition numbers (0x0001-0x7ffe); the top bit is
// MemberFlags::membership. GUIDs are port or alias GUIDs, known to the fabric or not yet
// (an unknown GUID is kept, pending, as UFM keeps VFs that are not up).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace ibsm::rest {

enum class Membership : std::uint8_t { kLimited, kFull };

// "full" / "limited", the words of UFM's API.
std::string_view membership_word(Membership m);

struct MemberFlags {
  Membership membership = Membership::kFull;
  bool index0 = false;  // the P_Key goes into entry 0 of the port's P_Key table
  bool operator==(const MemberFlags&) const = default;
};

struct ApiPartition {
  bool ip_over_ib = true;  // the IPoIB broadcast group is created (API-owned partitions)
  std::map<std::uint64_t, MemberFlags> members;
  bool operator==(const ApiPartition&) const = default;
};

// Everything the API added; an empty partition is not kept.
struct ApiState {
  std::map<std::uint16_t, ApiPartition> partitions;
  bool operator==(const ApiState&) const = default;
};

// A partition of partitions.conf, its member groups (ALL, ALL_CAS, ...) resolved to GUIDs.
struct AdminPartition {
  std::string name;
  bool ip_over_ib = false;
  std::map<std::uint64_t, MemberFlags> members;
};
using AdminPartitions = std::map<std::uint16_t, AdminPartition>;

enum class Source : std::uint8_t { kAdmin, kApi };

struct EffectiveMember {
  MemberFlags flags;
  Source source = Source::kAdmin;
  bool operator==(const EffectiveMember&) const = default;
};

struct EffectivePartition {
  std::string name;
  bool ip_over_ib = false;
  bool api_owned = false;  // not in partitions.conf: created by the API
  std::map<std::uint64_t, EffectiveMember> members;
};
using Effective = std::map<std::uint16_t, EffectivePartition>;

// The membership in force: every admin partition with its members, the API's members
// added to it where the admin has not listed the GUID (an admin member is never removed
// nor changed by the API), and the API-owned partitions. Pure.
Effective merge(const AdminPartitions& admin, const ApiState& api);

// One GUID's effective membership of one P_Key, or nothing.
std::optional<EffectiveMember> find_member(const AdminPartitions& admin, const ApiState& api,
                                           std::uint16_t pkey, std::uint64_t guid);

// What an API call changed in the membership in force: what the SM must program, and the
// pkey_member_added/removed events.
struct MembershipChange {
  enum class Kind : std::uint8_t { kAdded, kRemoved, kChanged };
  Kind kind = Kind::kAdded;
  std::uint16_t pkey = 0;
  std::uint64_t guid = 0;
  MemberFlags flags;  // after the change; before it for kRemoved
  bool ip_over_ib = false;
  bool operator==(const MembershipChange&) const = default;
};

// The name an API-owned partition is listed under: "api_0x0005".
std::string api_partition_name(std::uint16_t pkey);

// Text forms.
inline constexpr std::uint16_t kMinPkey = 0x0001;
inline constexpr std::uint16_t kMaxPkey = 0x7ffe;
// "0x" and 1-4 hex digits, either case ("0x0005", "0x5"); 0x0001-0x7ffe.
Result<std::uint16_t> parse_pkey(std::string_view text);
// 16 hex digits, either case, an optional 0x; not zero.
Result<std::uint64_t> parse_guid(std::string_view text);
std::string guid_text(std::uint64_t guid);  // 16 lower-case hex digits, as UFM lists them
std::string pkey_key(std::uint16_t pkey);   // "0x5": the keys of UFM's P_Key list
std::string pkey_text(std::uint16_t pkey);  // "0x0005"

}  // namespace ibsm::rest
