// Hostlist compression as Slurm writes it (src/common/hostlist.c, the ranged string of a
// sorted, de-duplicated hostlist), so topology.conf reads like one a site writes by hand
// and Slurm's parser expands it back to exactly the names given.
//
// Slurm's rules, as its hostlist.c applies them on a one-dimensional cluster:
//   - a name splits into a prefix and a numeric suffix, its trailing digits; a name
//     without trailing digits stands alone ("login");
//   - the suffix keeps its width: "node007" is number 7 of width 3, and is another host
//     than "node7"; two widths combine only where neither number's zero padding changes
//     (9 and 10 do: node[9-10]; 009 and 10 do not);
//   - consecutive numbers of one prefix and compatible widths form a range "lo-hi", each
//     end printed at the range's width; the ranges of one prefix share one bracket:
//     node[001-032,040],gpu[1-4],login.
// Order: by prefix (byte order), then by width and number, a prefix's lone name last.
// Slurm orders prefixes naturally (strnatcmp) and mixed widths slightly otherwise; the
// set of names is the same, which is all topology.conf needs. Suffixes of more than 18
// digits are left whole: Slurm's strtoul would change them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ibsm::slurm {

// The longest numeric suffix Slurm reads as a number (it fits in Slurm's unsigned long).
inline constexpr std::size_t kMaxSuffixDigits = 18;

// The names as one hostlist expression; duplicates are dropped. "" for none.
std::string compress_hostlist(std::vector<std::string> names);

}  // namespace ibsm::slurm
