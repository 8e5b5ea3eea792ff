// partitions.conf numbers (c_number.hpp): common/c_number.hpp with strtoul's sign and
// saturation.
#include "partitions/c_number.hpp"

#include <limits>

#include "common/c_number.hpp"

namespace ibsm::partitions {
namespace {

constexpr CNumberSyntax kStrtoul{.leading_space = true, .sign = true};

struct StrtoulResult {
  std::uint64_t value = 0;
  std::size_t consumed = 0;  // 0: no digits (strtoul's end == start)
};

StrtoulResult strtoul_like(std::string_view text) {
  const auto n = scan_c_number(text, kStrtoul);
  if (n) return {n->wrapped(), n->consumed};
  if (n.error().fault == CNumberFault::kOverflow)
    return {std::numeric_limits<std::uint64_t>::max(), n.error().at};
  return {};
}

}  // namespace

std::optional<std::uint64_t> parse_c_number_exact(std::string_view text) {
  const StrtoulResult r = strtoul_like(text);
  if (r.consumed == 0 || r.consumed != text.size()) return std::nullopt;
  return r.value;
}

std::uint64_t c_number_prefix(std::string_view text) {
  return strtoul_like(text).value;
}

}  // namespace ibsm::partitions
