#include "tests/fuzz/mutator.hpp"

#include <algorithm>
#include <array>
#include <string_view>

namespace ibsm::fuzz {

std::uint64_t Rng::next() {
  std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

namespace {

// Single bytes that sit on the edges of binary fields and the separators of the
// text formats we parse.
constexpr std::array<std::uint8_t, 20> kInterestingBytes = {
    0x00, 0x01, 0x02, 0x7f, 0x80, 0x81, 0xfe, 0xff, '\n', '\r',
    ' ',  '\t', '#',  '"',  '=',  ':',  '[',  ']',  '0',  'x'};

// Tokens that exercise number parsing and line structure in the text formats.
constexpr std::array<std::string_view, 16> kTokens = {"0x",
                                                      "0x0",
                                                      "0xffffffffffffffff",
                                                      "18446744073709551616",
                                                      "-1",
                                                      "99999999999999999999",
                                                      "\n\n",
                                                      "\"",
                                                      "'",
                                                      "# ",
                                                      "=",
                                                      "TRUE",
                                                      "[",
                                                      "]",
                                                      "\t",
                                                      "0xffffffffffffffffffff"};

void insert_bytes(Bytes& b, std::size_t at, const std::uint8_t* data, std::size_t n) {
  b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), data, data + n);
}

void edit(Bytes& b, const Bytes& other, Rng& rng) {
  const std::size_t size = b.size();
  switch (rng.below(11)) {
    case 0:  // flip one bit
      if (size) b[rng.below(size)] ^= static_cast<std::uint8_t>(1u << rng.below(8));
      break;
    case 1:  // an interesting byte
      if (size) b[rng.below(size)] = kInterestingBytes[rng.below(kInterestingBytes.size())];
      break;
    case 2:  // a random byte
      if (size) b[rng.below(size)] = static_cast<std::uint8_t>(rng.next());
      break;
    case 3:  // small arithmetic on a byte (counts, lengths, versions)
      if (size) {
        auto& x = b[rng.below(size)];
        x = static_cast<std::uint8_t>(x + (rng.one_in(2) ? 1 : 0xff) * (1 + rng.below(4)));
      }
      break;
    case 4: {  // delete a range
      if (!size) break;
      const std::size_t at = rng.below(size);
      const std::size_t n = std::min(size - at, 1 + rng.below(16));
      b.erase(b.begin() + static_cast<std::ptrdiff_t>(at),
              b.begin() + static_cast<std::ptrdiff_t>(at + n));
      break;
    }
    case 5: {  // duplicate a range somewhere else (repeated lines, records)
      if (!size) break;
      const std::size_t from = rng.below(size);
      const std::size_t n = std::min(size - from, 1 + rng.below(64));
      const Bytes chunk(b.begin() + static_cast<std::ptrdiff_t>(from),
                        b.begin() + static_cast<std::ptrdiff_t>(from + n));
      insert_bytes(b, rng.below(size + 1), chunk.data(), chunk.size());
      break;
    }
    case 6: {  // insert a token
      const std::string_view t = kTokens[rng.below(kTokens.size())];
      insert_bytes(b, rng.below(size + 1), reinterpret_cast<const std::uint8_t*>(t.data()),
                   t.size());
      break;
    }
    case 7: {  // insert random bytes
      std::array<std::uint8_t, 4> r{};
      const std::size_t n = 1 + rng.below(r.size());
      for (std::size_t i = 0; i < n; ++i)
        r[i] = static_cast<std::uint8_t>(rng.next());
      insert_bytes(b, rng.below(size + 1), r.data(), n);
      break;
    }
    case 8: {  // splice: our head, the other input's tail
      if (other.empty()) break;
      const std::size_t cut = size ? rng.below(size) : 0;
      const std::size_t from = rng.below(other.size());
      b.resize(cut);
      b.insert(b.end(), other.begin() + static_cast<std::ptrdiff_t>(from), other.end());
      break;
    }
    case 9:  // truncate
      if (size) b.resize(rng.below(size));
      break;
    default: {  // copy bytes over another place (fields swapped, values repeated)
      if (size < 2) break;
      const std::size_t from = rng.below(size);
      const std::size_t to = rng.below(size);
      const std::size_t n = std::min({size - from, size - to, 1 + rng.below(8)});
      std::copy_n(Bytes(b.begin() + static_cast<std::ptrdiff_t>(from),
                        b.begin() + static_cast<std::ptrdiff_t>(from + n))
                      .begin(),
                  n, b.begin() + static_cast<std::ptrdiff_t>(to));
      break;
    }
  }
}

}  // namespace

Bytes mutate(const Bytes& input, const Bytes& other, Rng& rng, std::size_t max_len) {
  Bytes b = input;
  const std::size_t edits = 1 + rng.below(4);
  for (std::size_t i = 0; i < edits; ++i)
    edit(b, other, rng);
  if (b.size() > max_len) b.resize(max_len);
  return b;
}

}  // namespace ibsm::fuzz
