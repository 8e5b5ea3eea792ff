#include "partitions/keywords.hpp"

#include <array>
#include <utility>

namespace ibsm::partitions {
namespace {

constexpr std::array<std::pair<GroupFlag, std::string_view>, 7> kGroupFlags{{
    {GroupFlag::kMtu, "mtu"},
    {GroupFlag::kRate, "rate"},
    {GroupFlag::kScope, "scope"},
    {GroupFlag::kQKey, "Q_Key"},
    {GroupFlag::kTClass, "TClass"},
    {GroupFlag::kSl, "sl"},
    {GroupFlag::kFlowLabel, "FlowLabel"},
}};

constexpr std::array<std::pair<MemberKind, std::string_view>, 6> kMemberKeywords{{
    {MemberKind::kNone, "NONE"},
    {MemberKind::kAll, "ALL"},
    {MemberKind::kAllCas, "ALL_CAS"},
    {MemberKind::kAllSwitches, "ALL_SWITCHES"},
    {MemberKind::kAllRouters, "ALL_ROUTERS"},
    {MemberKind::kSelf, "SELF"},
}};

}  // namespace

std::optional<GroupFlag> match_group_flag(std::string_view word) {
  for (const auto& [flag, name] : kGroupFlags)
    if (is_prefix_of(word, name)) return flag;
  return std::nullopt;
}

std::optional<PartitionFlag> match_partition_flag(std::string_view word) {
  if (is_prefix_of(word, "ipoib")) return PartitionFlag::kIpoib;
  if (is_prefix_of(word, "defmember")) return PartitionFlag::kDefmember;
  if (word == "indx0") return PartitionFlag::kIndx0;
  return std::nullopt;
}

std::string_view group_flag_name(GroupFlag f) {
  for (const auto& [flag, name] : kGroupFlags)
    if (flag == f) return name;
  return "?";
}

std::string_view partition_flag_name(PartitionFlag f) {
  switch (f) {
    case PartitionFlag::kIpoib:
      return "ipoib";
    case PartitionFlag::kDefmember:
      return "defmember";
    case PartitionFlag::kIndx0:
      return "indx0";
  }
  return "?";
}

std::optional<Membership> match_membership(std::string_view word) {
  if (is_prefix_of(word, "full")) return Membership::kFull;
  if (is_prefix_of(word, "both")) return Membership::kBoth;
  if (is_prefix_of(word, "limited")) return Membership::kLimited;
  return std::nullopt;
}

std::string_view membership_name(Membership m) {
  switch (m) {
    case Membership::kLimited:
      return "limited";
    case Membership::kFull:
      return "full";
    case Membership::kBoth:
      return "both";
  }
  return "?";
}

MemberKind match_member_keyword(std::string_view word) {
  if (word.empty()) return MemberKind::kNone;
  for (const auto& [kind, name] : kMemberKeywords)
    if (is_prefix_of(word, name)) return kind;
  return MemberKind::kGuid;
}

std::string_view member_keyword_name(MemberKind k) {
  for (const auto& [kind, name] : kMemberKeywords)
    if (kind == k) return name;
  return "";
}

}  // namespace ibsm::partitions
