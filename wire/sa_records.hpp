// Where the fields the agent reads sit in two SA records, in bytes from the record's
// start: MCMemberRecord (IBA 15.2.5.17) and PortInfoRecord (IBA 15.2.5.3). sa/'s
// layout tables (sa/layouts_multicast.cpp, sa/layouts_topology.cpp) place these
// fields from the same constants, so the SA that writes a record and the agent that
// reads it cannot disagree. ComponentMask bit i selects field i of sa/'s layout.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ibsm::wire {

// MCMemberRecord (IBA 15.2.5.17): 52 bytes, 56 with padding.
namespace mcmember {
inline constexpr std::size_t kSize = 52;
inline constexpr std::size_t kMgid = 0;      // 16 bytes
inline constexpr std::size_t kPortGid = 16;  // 16 bytes
inline constexpr std::size_t kQKey = 32;     // 4 bytes
inline constexpr std::size_t kMlid = 36;     // 2 bytes
inline constexpr std::size_t kMtu = 38;      // MTUSelector:2 | MTU:6
inline constexpr std::size_t kTClass = 39;
inline constexpr std::size_t kPKey = 40;             // 2 bytes
inline constexpr std::size_t kRate = 42;             // RateSelector:2 | Rate:6
inline constexpr std::uint8_t kValueMask = 0x3f;     // the low 6 bits of kMtu and kRate
inline constexpr std::uint64_t kMaskMgid = 1u << 0;  // ComponentMask bit of MGID
}  // namespace mcmember

// PortInfoRecord (IBA 15.2.5.3): EndportLID, PortNum, Options, then PortInfo
// (IBA 14.2.5.6) from byte 4. 68 bytes, 72 with padding.
namespace port_info_record {
inline constexpr std::size_t kSize = 68;
inline constexpr std::size_t kEndportLid = 0;  // 2 bytes
inline constexpr std::size_t kPortNum = 2;
inline constexpr std::size_t kOptions = 3;
inline constexpr std::size_t kPortInfo = 4;
inline constexpr std::size_t kNeighborMtu = kPortInfo + 36;  // NeighborMTU:4 | MasterSMSL:4
inline constexpr std::uint64_t kMaskEndportLid = 1u << 0;    // ComponentMask bit of EndportLID
}  // namespace port_info_record

}  // namespace ibsm::wire
