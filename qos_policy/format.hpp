// The policy written back in the policy file's own syntax, normalised (ranges sorted
// and merged, qos-ulps shown as the match rules and levels they became), with the
// line each item came from: what `ibsm --check-qos-policy` prints.
#pragma once

#include <string>

#include "qos_policy/model.hpp"

namespace ibsm::qos_policy {

std::string format_policy(const Policy& p);
std::string format_ranges(const Ranges& r, bool hex);
// "qos-level 'WholeSet' (line 40): sl 1, mtu-limit 4, rate-limit 5"
std::string describe_level(const Level& l);
// "qos-match-rule 3 (line 52, 'Storage targets')"
std::string describe_rule(const Policy& p, std::size_t rule);

}  // namespace ibsm::qos_policy
