// IPoIB rules as pure functions of plain values, each citing where the rule
// lives (kernel drivers/infiniband/ulp/ipoib, RFC 4391, IBA 10.9).
#pragma once

#include <cstdint>
#include <string>

namespace ibsm::agent {

inline constexpr std::uint16_t kFullMemberBit = 0x8000;
inline constexpr std::uint16_t kDefaultPKey = 0xffff;
inline constexpr int kMaxIfNameLen = 15;        // IFNAMSIZ - 1
inline constexpr int kConnectedMaxMtu = 65520;  // IPOIB_CM_MTU = 0x10000 - 0x10

// The kernel always sets the full-member bit on an IPoIB interface's P_Key
// (ipoib_ndo_init: priv->pkey |= 0x8000), so 0x0002 and 0x8002 are one interface.
constexpr std::uint16_t normalize_pkey(std::uint16_t pkey) {
  return pkey | kFullMemberBit;
}

// 0x0000 and 0x8000 are reserved (IBA 10.9.1.2); iproute2 accepts 0x8001-0xffff.
constexpr bool is_valid_pkey(std::uint16_t pkey) {
  return (pkey & 0x7fff) != 0;
}

// A table entry with bit 15 set is a full member; without it, a limited member
// that cannot reach other limited members.
constexpr bool is_full_member(std::uint16_t entry) {
  return (entry & kFullMemberBit) != 0;
}

// Same partition: the low 15 bits match (ib_find_pkey's fallback rule).
constexpr bool same_partition(std::uint16_t a, std::uint16_t b) {
  return (a & 0x7fff) == (b & 0x7fff);
}

// The name the kernel's sysfs create_child and NetworkManager give a child:
// "<parent>.%04x" of the normalised P_Key.
std::string child_name(const std::string& parent, std::uint16_t pkey);

// Largest MTU the mode allows. Datagram: the broadcast group's IB MTU minus the
// 4-byte IPoIB header (IPOIB_UD_MTU); connected: IPOIB_CM_MTU.
constexpr int max_mtu(bool connected, int broadcast_ib_mtu) {
  return connected ? kConnectedMaxMtu : broadcast_ib_mtu - 4;
}

// Byte 0 of the 20-byte IPoIB hardware address: 0x80 = connected mode capable
// (IPOIB_CM_SUPPORTED). Enhanced IPoIB (ConnectX-4+) does not set it.
bool hw_address_supports_connected(const std::string& address);

// The port GUID in an IPoIB hardware address: its last 8 bytes (bytes 1-11 hold
// the QPN and subnet prefix, which change).
std::uint64_t hw_address_guid(const std::string& address);

std::string format_pkey(std::uint16_t pkey);  // "0x8002"
std::string format_guid(std::uint64_t guid);  // "0x0002c90300001234"

}  // namespace ibsm::agent
