// The MAD common header (IBA 13.4.3): byte offsets and the methods of the agent's own
// MADs (the SA queries of sa_mcmember, the ibping answers of ping_responder).
#pragma once

#include <cstddef>
#include <cstdint>

namespace ibsm::agent {

inline constexpr std::size_t kOffBaseVersion = 0;
inline constexpr std::size_t kOffClass = 1;
inline constexpr std::size_t kOffClassVersion = 2;
inline constexpr std::size_t kOffMethod = 3;
inline constexpr std::size_t kOffStatus = 4;  // 2 bytes
inline constexpr std::size_t kOffTid = 8;     // 8 bytes
inline constexpr std::size_t kOffAttrId = 16;

inline constexpr std::uint8_t kMethodGet = 0x01;
inline constexpr std::uint8_t kMethodGetResp = 0x81;
inline constexpr std::uint8_t kResponseBit = 0x80;

}  // namespace ibsm::agent
