// A small, seeded byte mutator for replaying fuzz targets without libFuzzer.
//
// The unit suite runs every fuzz target over its seed corpus and then over a fixed
// number of mutants of it, so CI exercises more than the seeds with any compiler.
// Everything is deterministic (a SplitMix64 generator, no std distributions whose
// results differ between standard libraries): the same seed gives the same inputs
// on every machine, so a failure seen in CI is reproduced with `--emit`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ibsm::fuzz {

using Bytes = std::vector<std::uint8_t>;

// SplitMix64 (Steele, Lea, Flood: "Fast splittable pseudorandom number generators",
// OOPSLA 2014): tiny, fast, and its output is fixed by the algorithm.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  // Uniform enough in [0, n) for mutation choices; n must be > 0.
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
  bool one_in(std::size_t n) { return below(n) == 0; }

 private:
  std::uint64_t state_;
};

// Returns `input` with one to four random edits: bit flips, bytes set to values
// that break parsers (0, 0xff, 0x80, newline, '#', '"', ...), inserted tokens
// ("0x", long digit runs), deleted or duplicated ranges, a splice with `other`,
// truncation. The result is at most `max_len` bytes.
Bytes mutate(const Bytes& input, const Bytes& other, Rng& rng, std::size_t max_len);

}  // namespace ibsm::fuzz
