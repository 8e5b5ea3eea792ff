// The SA MAD around the records (IBA 15.2.1.1): the 24-byte common header
// (wire/mad_header.hpp), the 12-byte RMPP header (IBA 13.6.2), SM_Key,
// AttributeOffset and ComponentMask, then 200 bytes of records; and the SA's
// attribute IDs (IBA 15.2.5, table 186). Shared by sa/ (the SA) and the agent (a client).
#pragma once

#include <cstddef>
#include <cstdint>

#include "wire/mad_header.hpp"

namespace ibsm::wire::sa {

inline constexpr std::uint8_t kClassVersion = 2;  // SubnAdm class version (IBA 15.2.1.1)

inline constexpr std::size_t kOffRmppVersion = kOffRmppHeader;  // RMPP header (IBA 13.6.2)
inline constexpr std::size_t kOffRmppType = 25;
inline constexpr std::size_t kOffRmppRespTimeFlags = 26;  // RRespTime:5 | RMPPFlags:3
inline constexpr std::size_t kOffRmppStatus = 27;
inline constexpr std::size_t kOffRmppSegment = 28;                // SegmentNumber, 4 bytes
inline constexpr std::size_t kOffRmppLength = 32;                 // PayloadLength / NewWindowLast
inline constexpr std::size_t kOffSmKey = 36;                      // 8 bytes
inline constexpr std::size_t kOffAttrOffset = 44;                 // record size in 8-byte words
inline constexpr std::size_t kOffComponentMask = 48;              // 8 bytes
inline constexpr std::size_t kHeaderSize = 56;                    // the first record starts here
inline constexpr std::size_t kDataSize = kMadSize - kHeaderSize;  // 200

// SA attribute IDs (IBA 15.2.5, table 186).
namespace attr {
inline constexpr std::uint16_t kClassPortInfo = 0x0001;
inline constexpr std::uint16_t kNotice = 0x0002;
inline constexpr std::uint16_t kInformInfo = 0x0003;
inline constexpr std::uint16_t kNodeRecord = 0x0011;
inline constexpr std::uint16_t kPortInfoRecord = 0x0012;
inline constexpr std::uint16_t kSlToVlTableRecord = 0x0013;
inline constexpr std::uint16_t kSwitchInfoRecord = 0x0014;
inline constexpr std::uint16_t kLftRecord = 0x0015;
inline constexpr std::uint16_t kRftRecord = 0x0016;
inline constexpr std::uint16_t kMftRecord = 0x0017;
inline constexpr std::uint16_t kSmInfoRecord = 0x0018;
inline constexpr std::uint16_t kLinkRecord = 0x0020;
inline constexpr std::uint16_t kGuidInfoRecord = 0x0030;
inline constexpr std::uint16_t kServiceRecord = 0x0031;
inline constexpr std::uint16_t kPKeyTableRecord = 0x0033;
inline constexpr std::uint16_t kPathRecord = 0x0035;
inline constexpr std::uint16_t kVlArbTableRecord = 0x0036;
inline constexpr std::uint16_t kMcMemberRecord = 0x0038;
inline constexpr std::uint16_t kTraceRecord = 0x0039;
inline constexpr std::uint16_t kMultiPathRecord = 0x003A;
inline constexpr std::uint16_t kServiceAssociationRecord = 0x003B;
inline constexpr std::uint16_t kInformInfoRecord = 0x00F3;
}  // namespace attr

}  // namespace ibsm::wire::sa
