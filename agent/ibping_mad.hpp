// The ibping protocol, as pure functions over MAD bytes (infiniband-diags' ibping):
// a vendor class 0x32 (range 2) Get with the OpenIB OUI 00:14:05 and an empty data
// area; the server answers a GetResp carrying the same transaction ID, attribute and
// OUI, with "hostname.domain" (NUL-terminated) in the data area at byte 40. Layout:
// IBA 13.4.3 (MAD header), 16.5 (vendor MADs of range 2: RMPP header at 24,
// reserved byte 36, OUI at 37..39, data from 40).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace ibsm::agent {

inline constexpr std::size_t kMadSize = 256;
inline constexpr std::uint8_t kIbpingClass = 0x32;  // IB_VENDOR_OPENIB_PING_CLASS
inline constexpr std::array<std::uint8_t, 3> kOpenIbOui{0x00, 0x14, 0x05};
inline constexpr std::size_t kVendorDataOffset = 40;

using Mad = std::array<std::uint8_t, kMadSize>;

// True for an ibping request: base version 1, class 0x32, method Get (not a response),
// the OpenIB OUI. Anything else (a short buffer included) is not one.
bool is_ibping_request(std::span<const std::uint8_t> mad);

// The answer to `request` (which must pass is_ibping_request): GetResp, status 0, the
// request's TID, attribute and OUI, `host` in the data area (cut to 215 bytes + NUL).
Mad ibping_reply(std::span<const std::uint8_t> request, const std::string& host);

// What ibping -S answers with: "host.domain", or "host" when there is no NIS domain
// (empty or "(none)").
std::string ibping_host_name(const std::string& host, const std::string& domain);

}  // namespace ibsm::agent
