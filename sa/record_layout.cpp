#include "sa/record_layout.hpp"

#include <cstdio>
#include <cstring>

namespace ibsm::sa {

std::uint64_t get_field(std::span<const std::uint8_t> rec, const Field& f) {
  std::uint64_t v = 0;
  for (unsigned i = 0; i < f.bit_width && i < 64; ++i) {
    const unsigned bit = f.bit_offset + i;
    const std::size_t byte = bit / 8;
    if (byte >= rec.size()) return v;
    v = (v << 1) | ((rec[byte] >> (7 - bit % 8)) & 1u);
  }
  return v;
}

void set_field(std::span<std::uint8_t> rec, const Field& f, std::uint64_t value) {
  const unsigned width = f.bit_width > 64 ? 64 : f.bit_width;
  for (unsigned i = 0; i < width; ++i) {
    const unsigned bit = f.bit_offset + i;
    const std::size_t byte = bit / 8;
    if (byte >= rec.size()) return;
    const std::uint8_t mask = static_cast<std::uint8_t>(1u << (7 - bit % 8));
    if ((value >> (width - 1 - i)) & 1u) {
      rec[byte] = static_cast<std::uint8_t>(rec[byte] | mask);
    } else {
      rec[byte] = static_cast<std::uint8_t>(rec[byte] & ~mask);
    }
  }
}

bool field_equal(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b, const Field& f) {
  if (f.bit_width > 64) {
    const std::size_t off = f.bit_offset / 8;
    const std::size_t len = f.bit_width / 8;
    if (off + len > a.size() || off + len > b.size()) return false;
    return std::memcmp(a.data() + off, b.data() + off, len) == 0;
  }
  return get_field(a, f) == get_field(b, f);
}

bool matches(const RecordLayout& layout, std::span<const std::uint8_t> query,
             std::span<const std::uint8_t> candidate, std::uint64_t comp_mask) {
  for (std::size_t i = 0; i < layout.fields.size() && i < 64; ++i) {
    if ((comp_mask >> i & 1u) == 0) continue;
    if (!field_equal(query, candidate, layout.fields[i])) return false;
  }
  return true;
}

std::string dump_record(const RecordLayout& layout, std::span<const std::uint8_t> rec) {
  std::string out;
  char line[160];
  for (const Field& f : layout.fields) {
    if (f.name.starts_with("Reserved")) continue;
    if (f.bit_width > 64) {
      std::string hex;
      const std::size_t off = f.bit_offset / 8;
      for (std::size_t i = 0; i < f.bit_width / 8 && off + i < rec.size(); ++i) {
        std::snprintf(line, sizeof line, "%02x", rec[off + i]);
        hex += line;
      }
      out += std::string(f.name) + ": " + hex + "\n";
      continue;
    }
    std::snprintf(line, sizeof line, "%.*s: 0x%llx\n", static_cast<int>(f.name.size()),
                  f.name.data(), static_cast<unsigned long long>(get_field(rec, f)));
    out += line;
  }
  return out;
}

}  // namespace ibsm::sa
