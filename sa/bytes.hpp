// Big-endian reads and writes of SA records and MAD payloads (IBA 13.4.3: every
// multi-byte field on the wire is big-endian).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace ibsm::sa {

// Stores the low `n` bytes of `v` at b[off], most significant first.
inline void put_be(std::span<std::uint8_t> b, std::size_t off, std::uint64_t v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    b[off + i] = static_cast<std::uint8_t>(v >> (8 * (n - 1 - i)));
}

// The `n`-byte big-endian number at b[off]; bytes past the end of `b` read as absent.
inline std::uint64_t get_be(std::span<const std::uint8_t> b, std::size_t off, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n && off + i < b.size(); ++i)
    v = (v << 8) | b[off + i];
  return v;
}

inline std::uint16_t be16(std::span<const std::uint8_t> b, std::size_t off) {
  return static_cast<std::uint16_t>(get_be(b, off, 2));
}

}  // namespace ibsm::sa
