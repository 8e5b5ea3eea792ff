// 128-bit GIDs (MGIDs) in their IPv6 text form, read with inet_pton as OpenSM does.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ibsm::partitions {

using Gid = std::array<std::uint8_t, 16>;

std::optional<Gid> parse_gid(std::string_view text);
std::string format_gid(const Gid& gid);  // canonical IPv6 text (inet_ntop)

// IPoIB MGIDs carry the signature 0x401b (IPv4) or 0x601b (IPv6) in bytes 2-3 and
// the P_Key in bytes 4-5 (RFC 4391 §4).
bool gid_is_ip(const Gid& gid);
std::uint16_t gid_pkey(const Gid& gid);
void gid_set_pkey(Gid& gid, std::uint16_t pkey);
void gid_set_scope(Gid& gid, std::uint8_t scope);  // low nibble of byte 1
// ff12:401b:<pkey>::ffff:ffff, the IPoIB broadcast group of a P_Key (with 0x8000).
Gid ipoib_broadcast_mgid(std::uint16_t pkey_full, std::uint8_t scope);

}  // namespace ibsm::partitions
