// The one SA exchange the agent makes, as pure functions over bytes: a SubnAdmGet
// of the MCMemberRecord of a partition's IPoIB broadcast group, and the decoder of
// its GetResp. Kept apart from the libibumad I/O (sa_group_source.cpp) so that the
// decoder is tested on handmade buffers. Layouts: IBA 13.4.3 (MAD header), 15.2.1.1
// (SA header), 15.2.5.17 (MCMemberRecord), 15.2.5.3 (PortInfoRecord), all from wire/.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "common/result.hpp"
#include "wire/mad_header.hpp"
#include "wire/sa_header.hpp"

namespace ibsm::agent {

// The SA MAD's layout is wire/'s (wire/sa_header.hpp), shared with sa/.
inline constexpr std::size_t kSaMadSize = wire::kMadSize;
inline constexpr std::uint8_t kClassSubnAdm = wire::mgmt_class::kSubnAdm;
inline constexpr std::uint8_t kSaClassVersion = wire::sa::kClassVersion;
inline constexpr std::uint32_t kQp1QKey = 0x80010000;  // the well-known GSI Q_Key

using Mgid = std::array<std::uint8_t, 16>;
using SaMad = std::array<std::uint8_t, kSaMadSize>;

// ff12:401b:<pkey|0x8000>::ffff:ffff: the IPoIB broadcast group Linux joins for a P_Key
// (ipoib_mcast_join_task: scope nibble 2 = link-local, signature 0x401b, the P_Key with
// the full-member bit set, then 0xffffffff in the last four bytes).
Mgid ipoib_broadcast_mgid(std::uint16_t pkey);

// "ff12:401b:ffff::ffff:ffff" (RFC 5952 compression, as saquery prints MGIDs).
std::string format_mgid(const Mgid& mgid);

// IB MTU code 1..5 -> 256..4096 bytes; 0 for anything else.
int ib_mtu_bytes(int code);

// IBA rate code (2..24) -> Gb/s; 0 for anything else.
double ib_rate_gbps(int code);

// SubnAdmGet(MCMemberRecord) with ComponentMask = MGID. Only the low 32 bits of `tid`
// come back: the kernel (and umad2sim) put their agent number in the high half.
SaMad encode_broadcast_group_get(const Mgid& mgid, std::uint32_t tid);

// True when `mad` is a SubnAdm response (any status) to the request with `tid`; other
// MADs that reach the agent are skipped, not errors.
bool answers_request(std::span<const std::uint8_t> mad, std::uint32_t tid);

// Why `answer`, which came from LID `from_lid`, is not the answer to `request`, sent to
// LID `to_lid`: nullptr when it is. A response carries its request's TID (IBA 13.4.6.4),
// class, attribute ID and modifier, with the response bit set (13.4.5), and comes from
// the port asked. Anything else is some other host's MAD (or a late one): dropped.
const char* answer_mismatch(std::span<const std::uint8_t> answer, std::uint16_t from_lid,
                            std::span<const std::uint8_t> request, std::uint16_t to_lid);

// What verify compares with the port (the rate and MTU an SA join must meet).
struct BroadcastGroup {
  int mtu_bytes = 0;  // 256..4096
  int rate_code = 0;  // IBA rate code (15.2.5.16), 2 = 2.5 Gb/s ... 24 = 1200 Gb/s
};

// The group's MTU and rate from a GetResp to encode_broadcast_group_get(mgid); same
// rejections as decode_broadcast_group_mtu, plus an unknown rate code.
Result<BroadcastGroup> decode_broadcast_group(std::span<const std::uint8_t> mad, const Mgid& mgid);

// SubnAdmGet(PortInfoRecord) with ComponentMask = EndportLID: the SA's view of the
// port at `lid` (a CA port has one record per LID).
SaMad encode_port_info_get(std::uint16_t lid, std::uint32_t tid);

// PortInfo.NeighborMTU in bytes (the port's active MTU, what OpenSM compares with a
// group's MTU at a join) from a GetResp to encode_port_info_get(lid). Never throws.
Result<int> decode_port_neighbor_mtu(std::span<const std::uint8_t> mad, std::uint16_t lid);

// The group's IB MTU in bytes from a GetResp to encode_broadcast_group_get(mgid).
// Never throws: a short buffer, another attribute, a non-zero status, another MGID or
// an invalid MTU code is a kGroupMtuRejected error saying which.
Result<int> decode_broadcast_group_mtu(std::span<const std::uint8_t> mad, const Mgid& mgid);

// "0x0300 (no records)": the SA status of a response, for messages.
std::string describe_sa_status(std::uint16_t status);

}  // namespace ibsm::agent
