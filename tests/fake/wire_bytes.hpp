// Big-endian 16-bit fields in a MAD buffer, as the fake fabric's agents read and patch them
// (one copy for fake_fabric.cpp and fake_cc.cpp, which a unity build compiles together).
#pragma once

#include <cstdint>

namespace ibsm::fake {

inline void put16(std::uint8_t* p, std::uint16_t v) {
  p[0] = static_cast<std::uint8_t>(v >> 8);
  p[1] = static_cast<std::uint8_t>(v);
}

inline std::uint16_t get16(const std::uint8_t* p) {
  return static_cast<std::uint16_t>((p[0] << 8) | p[1]);
}

}  // namespace ibsm::fake
