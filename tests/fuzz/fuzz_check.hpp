// What a fuzz target does when an invariant breaks: say which and abort, so
// libFuzzer saves the input and the replay test fails naming it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace ibsm::fuzz {

[[noreturn]] inline void broken(std::string_view target, std::string_view what) {
  std::fprintf(stderr, "fuzz %.*s: %.*s\n", static_cast<int>(target.size()), target.data(),
               static_cast<int>(what.size()), what.data());
  std::abort();
}

inline void expect(bool ok, std::string_view target, std::string_view what) {
  if (!ok) broken(target, what);
}

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace ibsm::fuzz
