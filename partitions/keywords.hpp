// Keyword matching as OpenSM does it: a word written in the file selects a keyword
// when it is a case-sensitive prefix of it (strncmp(word, keyword, strlen(word))),
// tried in a fixed order. So "A" means ALL, "s" means scope (not sl), "limi" means
// limited, and an empty word matches the first candidate.
#pragma once

#include <optional>
#include <string_view>

namespace ibsm::partitions {

constexpr bool is_prefix_of(std::string_view word, std::string_view keyword) {
  return word.size() <= keyword.size() && keyword.substr(0, word.size()) == word;
}

// Flags of a multicast group; tried first, in this order (osm_prtn_config.c).
enum class GroupFlag { kMtu, kRate, kScope, kQKey, kTClass, kSl, kFlowLabel };
// Flags only a partition header has; tried after the group flags.
enum class PartitionFlag { kIpoib, kDefmember, kIndx0 };

std::optional<GroupFlag> match_group_flag(std::string_view word);
std::optional<PartitionFlag> match_partition_flag(std::string_view word);  // indx0: exact
std::string_view group_flag_name(GroupFlag f);
std::string_view partition_flag_name(PartitionFlag f);

enum class Membership { kLimited, kFull, kBoth };
// full, both, limited in that order; nullopt for anything else (OpenSM: limited).
std::optional<Membership> match_membership(std::string_view word);
std::string_view membership_name(Membership m);

enum class MemberKind { kNone, kAll, kAllCas, kAllSwitches, kAllRouters, kSelf, kGuid };
// NONE (and the empty word), ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF; kGuid otherwise.
MemberKind match_member_keyword(std::string_view word);
std::string_view member_keyword_name(MemberKind k);

}  // namespace ibsm::partitions
