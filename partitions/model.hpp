// What a partitions.conf says, statement by statement, after OpenSM's reading rules
// have been applied (prefix keywords, strtoul numbers, flag defaults, inheritance of
// group flags). Resolving it against P_Key assignment and a fabric is resolve.hpp's
// and planner.hpp's job.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "partitions/gid.hpp"
#include "partitions/keywords.hpp"

namespace ibsm::partitions {

// Where an element was written. Compares equal to any other location, so that two
// models compare equal when they say the same thing (round-trip tests).
struct SourceLoc {
  int line = 0;
  int column = 0;
  bool operator==(const SourceLoc&) const { return true; }
};

inline constexpr std::uint8_t kDefaultMtu = 4;    // 2048 bytes
inline constexpr std::uint8_t kDefaultRate = 3;   // 10 Gb/s
inline constexpr std::uint8_t kDefaultScope = 2;  // link-local
inline constexpr std::uint32_t kIpoibQKey = 0x0b1b;
inline constexpr std::uint16_t kDefaultPKey = 0x7fff;

// Parameters of multicast groups as a partition header sets them (OpenSM defaults).
struct GroupFlags {
  std::uint8_t mtu = kDefaultMtu;
  std::uint8_t rate = kDefaultRate;
  std::uint8_t sl = 0;
  std::uint16_t scope_mask = 0;  // bit n = scope n; 0 means "link-local only"
  std::uint32_t qkey = 0;        // 0: 0x0b1b for IP groups, 0 otherwise
  std::uint8_t tclass = 0;
  std::uint32_t flow_label = 0;
  bool operator==(const GroupFlags&) const = default;
};

// Flags written on an mgid line; unset ones come from the partition header
// (except TClass, which OpenSM does not inherit).
struct GroupOverrides {
  std::optional<std::uint8_t> mtu, rate, sl;
  std::uint16_t scope_mask = 0;  // added to the inherited scopes
  std::optional<std::uint32_t> qkey;
  std::optional<std::uint8_t> tclass;
  std::optional<std::uint32_t> flow_label;
  bool operator==(const GroupOverrides&) const = default;
};

struct McGroupLine {
  Gid mgid{};
  GroupOverrides overrides;
  SourceLoc loc;
  bool operator==(const McGroupLine&) const = default;
};

struct Member {
  MemberKind kind = MemberKind::kGuid;   // never kNone: NONE adds nothing
  std::uint64_t guid = 0;                // kGuid only
  std::optional<Membership> membership;  // nullopt: the statement's defmember
  SourceLoc loc;
  bool operator==(const Member&) const = default;
};

struct Statement {
  std::string name;        // may be empty
  std::uint16_t pkey = 0;  // low 15 bits as written; 0 = assign automatically
  bool ipoib = false;
  bool indx0 = false;
  Membership defmember = Membership::kLimited;
  GroupFlags flags;
  std::vector<Member> members;
  std::vector<McGroupLine> groups;
  SourceLoc loc;
  bool operator==(const Statement&) const = default;
};

struct Config {
  std::vector<Statement> statements;
  bool operator==(const Config&) const = default;
};

}  // namespace ibsm::partitions
