#include "perfmgr/wire_layout.hpp"

namespace ibsm::perfmgr {

std::uint64_t get_bits(std::span<const std::uint8_t> data, unsigned bit, unsigned width) {
  std::uint64_t v = 0;
  if (bit % 8 == 0 && width % 8 == 0 && (bit + width) / 8 <= data.size()) {  // whole bytes
    for (unsigned i = bit / 8; i < (bit + width) / 8; ++i)
      v = (v << 8) | data[i];
    return v;
  }
  for (unsigned i = 0; i < width; ++i) {
    const unsigned b = bit + i;
    const unsigned byte = b / 8;
    const unsigned shift = 7 - b % 8;
    const std::uint64_t on = byte < data.size() ? (data[byte] >> shift) & 1u : 0u;
    v = (v << 1) | on;
  }
  return v;
}

void set_bits(std::span<std::uint8_t> data, unsigned bit, unsigned width, std::uint64_t value) {
  for (unsigned i = 0; i < width; ++i) {
    const unsigned b = bit + i;
    const unsigned byte = b / 8;
    if (byte >= data.size()) return;
    const unsigned shift = 7 - b % 8;
    const bool on = ((value >> (width - 1 - i)) & 1u) != 0;
    const auto mask = static_cast<std::uint8_t>(1u << shift);
    data[byte] = static_cast<std::uint8_t>(on ? data[byte] | mask : data[byte] & ~mask);
  }
}

}  // namespace ibsm::perfmgr
