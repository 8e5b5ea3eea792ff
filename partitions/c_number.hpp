// Numbers the way OpenSM reads partitions.conf: C's strtoul/strtoull with base 0
// ("0x1f" hex, "017" octal, "15" decimal, leading blanks, optional sign, saturating on
// overflow). Reading numbers exactly like OpenSM is what makes every existing
// partitions.conf mean the same thing to ibsm. The reading itself is
// common/c_number.hpp's; these two add strtoul's wrap of a negative number and its
// saturation on overflow.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ibsm::partitions {

// The whole text must be the number (OpenSM's "end == id || *end" check).
std::optional<std::uint64_t> parse_c_number_exact(std::string_view text);

// strtoul(text, NULL, 0): the leading number, 0 if there is none.
std::uint64_t c_number_prefix(std::string_view text);

}  // namespace ibsm::partitions
