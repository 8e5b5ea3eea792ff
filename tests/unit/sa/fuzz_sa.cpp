// Fuzz target: any bytes as a MAD on the SA's queue. The bytes go through the
// whole SA (header decode, dispatch rules, the attribute's record handler,
// response framing) twice: from a CA through a transport with kernel RMPP, and
// from a switch through a single-MAD transport (umad2sim's case). Nothing may
// crash, and every answer must be one well-formed SA MAD (fuzz_harness.cpp).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>

#include "tests/unit/sa/fuzz_harness.hpp"

namespace {

void judge(const std::string& problem, std::span<const std::uint8_t> mad, const char* path) {
  if (problem.empty()) return;
  std::fprintf(stderr, "SA fuzz: %s (%s)\nrequest (%zu bytes): %s\n", problem.c_str(), path,
               mad.size(), ibsm::satest::hex(mad).c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto& h = ibsm::satest::fuzz_harness();
  const std::span<const std::uint8_t> mad(data, size);
  judge(h.feed(mad, h.ca_lids().front(), /*kernel_rmpp=*/true), mad, "kernel RMPP, from a CA");
  judge(h.feed(mad, h.switch_lids().front(), /*kernel_rmpp=*/false), mad,
        "single MADs, from a switch");
  return 0;
}
