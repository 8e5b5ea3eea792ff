// The protocol rules of multicast joins and leaves (IBA 15.2.5.17 MCMemberRecord,
// o15-0.1.x / o15-0.2.x; RFC 4391 for IPoIB MGIDs) as pure functions, so that the
// MCMemberRecord Set/Delete handler (sa/records/mcmember_join.cpp) only sequences
// them against the group store, and tests can pin each one alone. Where the IBA
// leaves room, the choice is OpenSM 3.3's (osm_sa_mcmember_record.c,
// osm_multicast.c), noted at each function.
#pragma once

#include <cstdint>
#include <optional>

#include "sa/mcast/group_store.hpp"

namespace ibsm::sa::mcast {

// ComponentMask bits of MCMemberRecord (IBA 15.2.5.17 table 209, field order).
namespace bit {
inline constexpr std::uint64_t kMgid = 1ull << 0;
inline constexpr std::uint64_t kPortGid = 1ull << 1;
inline constexpr std::uint64_t kQKey = 1ull << 2;
inline constexpr std::uint64_t kMlid = 1ull << 3;
inline constexpr std::uint64_t kMtuSel = 1ull << 4;
inline constexpr std::uint64_t kMtu = 1ull << 5;
inline constexpr std::uint64_t kTClass = 1ull << 6;
inline constexpr std::uint64_t kPKey = 1ull << 7;
inline constexpr std::uint64_t kRateSel = 1ull << 8;
inline constexpr std::uint64_t kRate = 1ull << 9;
inline constexpr std::uint64_t kLifeSel = 1ull << 10;
inline constexpr std::uint64_t kLife = 1ull << 11;
inline constexpr std::uint64_t kSl = 1ull << 12;
inline constexpr std::uint64_t kFlowLabel = 1ull << 13;
inline constexpr std::uint64_t kHopLimit = 1ull << 14;
inline constexpr std::uint64_t kScope = 1ull << 15;
inline constexpr std::uint64_t kJoinState = 1ull << 16;
inline constexpr std::uint64_t kProxyJoin = 1ull << 17;
}  // namespace bit

// o15-0.1.9 / o15-0.1.14: a join or leave names the group, the port and the bits.
inline constexpr std::uint64_t kJoinMask = bit::kMgid | bit::kPortGid | bit::kJoinState;
// o15-0.2.3 leaves the create components to the SA; these are OpenSM's
// REQUIRED_MC_CREATE_COMP_MASK (what a group cannot be given a default for).
inline constexpr std::uint64_t kCreateMask =
    kJoinMask | bit::kQKey | bit::kTClass | bit::kPKey | bit::kFlowLabel | bit::kSl;

// The MCMemberRecord of a Set or Delete, decoded (52 bytes; IBA table 208).
struct McRequest {
  std::uint64_t mask = 0;
  Gid mgid{};
  Gid port_gid{};
  std::uint32_t qkey = 0;
  Lid mlid = 0;
  std::uint8_t mtu_sel = 0, mtu = 0;
  std::uint8_t tclass = 0;
  std::uint16_t pkey = 0;
  std::uint8_t rate_sel = 0, rate = 0;
  std::uint8_t life_sel = 0, life = 0;
  std::uint8_t sl = 0;
  std::uint32_t flow_label = 0;
  std::uint8_t hop_limit = 0;
  std::uint8_t scope = 0;
  std::uint8_t join_state = 0;

  bool has(std::uint64_t b) const { return (mask & b) == b; }
};

// Decodes the first 52 bytes of `rec` (shorter input reads as zeros); never throws.
McRequest decode_request(std::span<const std::uint8_t> rec, std::uint64_t mask);

// IBA 15.2.5.17 table 210 note / OpenSM: MTU and rate enums are checked when both
// selector and value are masked (MTU 1..5, rate 2..24).
bool enums_valid(const McRequest& r);

// o15-0.1.5 with IBA 4.1.1 item 14: an MGID a client names for a new group starts
// with 0xFF, has none of the three reserved flag bits, and does not use the SA's
// own signature 0xA01B with link-local scope. IPoIB MGIDs (signatures 0x401B IPv4,
// 0x601B IPv6, RFC 4391) are exempt, as in OpenSM.
bool requested_mgid_valid(const Gid& mgid);

// RFC 4391 signature (bytes 2-3) of an IPoIB MGID, 0 when it is none.
std::uint16_t ipoib_signature(const Gid& mgid);
// The IPoIB broadcast group a new IPoIB MGID belongs with, ff1<scope>:401b:<pkey>::
// ffff:ffff (RFC 4391 4.); nullopt when `mgid` is that broadcast group itself or not
// IPoIB at all (nothing to validate against).
std::optional<Gid> ipoib_broadcast_for(const Gid& mgid);

// RFC 4291 2.7.1 solicited-node address mapped by RFC 4391:
// ff1<scope>:601b:<pkey>::1:ffXX:XXXX. Two of them with the same scope and P_Key
// differ only in the last 24 bits.
bool is_ipv6_snm(const Gid& mgid);
bool same_snm_family(const Gid& a, const Gid& b);

// The MGID the SA chooses when a create names none (o15-0.2.3): ff1<scope>:a01b:
// <subnet prefix>:<counter> (IBA 4.1.1 item 14: 0xA01B marks SA-assigned MGIDs).
// OpenSM puts the prefix at bytes 4-11 and the counter at bytes 10-13, the counter
// overwriting the prefix's last two bytes and leaving bytes 14-15 zero; the layout is
// kept so that MGIDs look alike on both SMs.
Gid sa_assigned_mgid(std::uint8_t scope, std::uint64_t subnet_prefix, std::uint32_t counter);

// o15-0.2.3 end: MTU and rate of a new group, from the request's selector and the
// creating port's NeighborMTU / rate (OpenSM mgrp_request_is_realizable): absent or
// selector 3 → the port's value; ">" → the port's value if above the request;
// "<" → one below the request, or the port's if the request exceeds it; "=" as given.
// nullopt when not realizable (ERR_REQ_INVALID).
std::optional<std::uint8_t> create_mtu(const McRequest& r, std::uint8_t port_mtu);
std::optional<std::uint8_t> create_rate(const McRequest& r, std::uint8_t port_rate);

// o15-0.2.4 item 5 / OpenSM validate_other_comp_fields: the masked Q_Key, P_Key
// (base equal, one side full), TClass, SL, FlowLabel and HopLimit equal the group's.
bool other_fields_match(const McRequest& r, const McGroupRec& g);
// o15-0.2.4 item 5 for MTU and rate: the group's values satisfy the request's
// selectors (OpenSM validate_more_comp_fields; selector 3 accepts anything).
bool selectors_match(const McRequest& r, const McGroupRec& g);
// A port can carry the group's traffic: group MTU ≤ the port's NeighborMTU and
// group rate ≤ the port's rate (OpenSM validate_port_caps).
bool port_can_carry(const McGroupRec& g, std::uint8_t neighbor_mtu, std::uint8_t port_rate);

// o15-0.1.14 items 2-3: a leave names at least one bit the member holds and none it
// does not.
bool leave_bits_valid(std::uint8_t stored, std::uint8_t requested);

// What a leave leaves behind (o15-0.1.14, OpenSM osm_mgrp_remove_port): the member
// keeps the remaining bits while it still holds a full membership (Full or
// SendOnlyFull) or another member keeps the group alive; otherwise it is removed
// (0). OpenSM tests only the Full bit here, so a member left with SendOnlyFull is
// removed while still counted as full and its group, MLID included, is never freed
// (opensm PR #43); counting SendOnlyFull as full closes that leak.
std::uint8_t state_after_leave(std::uint8_t stored, std::uint8_t requested,
                               bool other_full_members);

inline constexpr std::uint8_t kFullBits = join::kFull | join::kSendOnlyFull;

}  // namespace ibsm::sa::mcast
