// The MAD common header (IBA vol. 1, 13.4.2-13.4.5): where its fields sit, and the
// base version, management classes and methods written there. The one definition
// mad/, sa/, perfmgr/ and the agent share; encoders and decoders live with them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ibsm::wire {

inline constexpr std::size_t kMadSize = 256;       // IBA 13.4.2: every MAD is 256 bytes
inline constexpr std::size_t kMadHeaderSize = 24;  // IBA 13.4.3
inline constexpr std::uint8_t kBaseVersion = 1;    // IBA 13.4.3: BaseVersion

// Byte offsets of the common header's fields (IBA 13.4.3).
inline constexpr std::size_t kOffBaseVersion = 0;
inline constexpr std::size_t kOffClass = 1;  // MgmtClass
inline constexpr std::size_t kOffClassVersion = 2;
inline constexpr std::size_t kOffMethod = 3;         // R bit | Method
inline constexpr std::size_t kOffStatus = 4;         // 2 bytes
inline constexpr std::size_t kOffClassSpecific = 6;  // 2 bytes
inline constexpr std::size_t kOffTid = 8;            // 8 bytes
inline constexpr std::size_t kOffAttrId = 16;        // 2 bytes
inline constexpr std::size_t kOffAttrMod = 20;
// Classes that use RMPP (SA, vendor range 2) put its 12-byte header next (IBA 13.6.2).
inline constexpr std::size_t kOffRmppHeader = 24;
inline constexpr std::size_t kRmppHeaderSize = 12;  // 4 bytes (after 2 reserved)

// Management classes (IBA 13.4.4).
namespace mgmt_class {
inline constexpr std::uint8_t kSmiLid = 0x01;
inline constexpr std::uint8_t kSubnAdm = 0x03;
inline constexpr std::uint8_t kPerfMgt = 0x04;  // IBA 16.1
inline constexpr std::uint8_t kSmiDirected = 0x81;
}  // namespace mgmt_class

// Methods (IBA 13.4.5, table 109; the SA's own in 15.2.2, table 184). The response to
// method M is M | kResponseBit, except TrapRepress, which answers Trap.
namespace method {
inline constexpr std::uint8_t kGet = 0x01;
inline constexpr std::uint8_t kSet = 0x02;
inline constexpr std::uint8_t kSend = 0x03;
inline constexpr std::uint8_t kTrap = 0x05;
inline constexpr std::uint8_t kReport = 0x06;
inline constexpr std::uint8_t kTrapRepress = 0x07;
inline constexpr std::uint8_t kGetTable = 0x12;
inline constexpr std::uint8_t kGetTraceTable = 0x13;
inline constexpr std::uint8_t kGetMulti = 0x14;
inline constexpr std::uint8_t kDelete = 0x15;
inline constexpr std::uint8_t kResponseBit = 0x80;
inline constexpr std::uint8_t kGetResp = kGet | kResponseBit;  // 0x81
inline constexpr std::uint8_t kReportResp = kReport | kResponseBit;
inline constexpr std::uint8_t kGetTableResp = kGetTable | kResponseBit;
inline constexpr std::uint8_t kGetTraceTableResp = kGetTraceTable | kResponseBit;
inline constexpr std::uint8_t kGetMultiResp = kGetMulti | kResponseBit;
inline constexpr std::uint8_t kDeleteResp = kDelete | kResponseBit;
}  // namespace method

}  // namespace ibsm::wire
