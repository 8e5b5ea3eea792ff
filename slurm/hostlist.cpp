// Slurm's hostlist compression (slurm/hostlist.hpp).
#include "slurm/hostlist.hpp"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <tuple>

#include <spdlog/fmt/fmt.h>

namespace ibsm::slurm {

namespace {

struct HostName {
  std::string prefix;  // the whole name when `single`
  bool single = true;  // no numeric suffix
  std::uint64_t num = 0;
  int width = 0;  // digits of the suffix as written

  auto key() const { return std::tie(prefix, single, width, num); }
};

HostName split(const std::string& name) {
  std::size_t end = name.size();
  while (end > 0 && name[end - 1] >= '0' && name[end - 1] <= '9')
    --end;
  const std::size_t digits = name.size() - end;
  HostName h;
  if (digits == 0 || digits > kMaxSuffixDigits) {
    h.prefix = name;
    return h;
  }
  h.prefix = name.substr(0, end);
  h.single = false;
  h.width = static_cast<int>(digits);
  for (std::size_t i = end; i < name.size(); ++i)
    h.num = h.num * 10 + static_cast<std::uint64_t>(name[i] - '0');
  return h;
}

// Zeros needed to pad `num` to `width` (hostlist.c's _zero_padded).
int zero_padded(std::uint64_t num, int width) {
  int n = 1;
  while (num /= 10)
    ++n;
  return width > n ? width - n : 0;
}

// hostlist.c's _width_equiv: widths `wn` of n and `wm` of m are equivalent when one of
// them applied to both changes neither's padding; the other is then set to it.
bool width_equiv(std::uint64_t n, int& wn, std::uint64_t m, int& wm) {
  if (wn == wm) return true;
  const int npad = zero_padded(n, wn), nmpad = zero_padded(n, wm);
  const int mpad = zero_padded(m, wm), mnpad = zero_padded(m, wn);
  if (npad != nmpad && mpad != mnpad) return false;
  if (npad != nmpad)
    wm = wn;
  else
    wn = wm;
  return true;
}

struct Range {
  std::string prefix;
  bool single = true;
  std::uint64_t lo = 0, hi = 0;
  int width = 0;
};

std::string numbers(const Range& r) {
  std::string s = fmt::format("{:0{}}", r.lo, r.width);
  if (r.hi > r.lo) s += fmt::format("-{:0{}}", r.hi, r.width);
  return s;
}

}  // namespace

std::string compress_hostlist(std::vector<std::string> names) {
  std::vector<HostName> hosts;
  hosts.reserve(names.size());
  for (const std::string& n : names)
    hosts.push_back(split(n));
  std::ranges::sort(hosts, [](const HostName& a, const HostName& b) { return a.key() < b.key(); });
  hosts.erase(std::unique(hosts.begin(), hosts.end(),
                          [](const HostName& a, const HostName& b) { return a.key() == b.key(); }),
              hosts.end());

  std::vector<Range> ranges;
  for (HostName& h : hosts) {
    if (!ranges.empty() && !h.single) {
      Range& last = ranges.back();
      int wl = last.width, wh = h.width;
      if (!last.single && last.prefix == h.prefix && h.num == last.hi + 1 &&
          width_equiv(last.lo, wl, h.num, wh)) {
        last.hi = h.num;
        last.width = wl;
        continue;
      }
    }
    ranges.push_back({std::move(h.prefix), h.single, h.num, h.num, h.width});
  }

  // A run of ranges of one prefix shares a bracket (hostlist.c's _get_bracketed_list).
  std::string out;
  for (std::size_t i = 0; i < ranges.size();) {
    if (!out.empty()) out += ',';
    const Range& first = ranges[i];
    out += first.prefix;
    if (first.single) {
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    while (j < ranges.size() && !ranges[j].single && ranges[j].prefix == first.prefix)
      ++j;
    const bool bracket = j - i > 1 || first.hi > first.lo;
    if (bracket) out += '[';
    for (std::size_t k = i; k < j; ++k) {
      if (k > i) out += ',';
      out += numbers(ranges[k]);
    }
    if (bracket) out += ']';
    i = j;
  }
  return out;
}

}  // namespace ibsm::slurm
