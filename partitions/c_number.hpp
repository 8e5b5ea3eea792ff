// Numbers the way OpenSM reads them: C's strtoul/strtoull with base 0
// ("0x1f" hex, "017" octal, "15" decimal, optional sign, saturating on overflow).
// Reading numbers exactly like OpenSM is what makes every existing partitions.conf
// mean the same thing to ibsm.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ibsm::partitions {

struct CNumber {
  std::uint64_t value = 0;
  std::size_t consumed = 0;  // characters read, like strtoul's end pointer
};

// nullopt when no digit could be read (strtoul's end == start).
std::optional<CNumber> parse_c_number(std::string_view text);

// The whole text must be the number (OpenSM's "end == id || *end" check).
std::optional<std::uint64_t> parse_c_number_exact(std::string_view text);

// strtoul(text, NULL, 0): the leading number, 0 if there is none.
std::uint64_t c_number_prefix(std::string_view text);

}  // namespace ibsm::partitions
