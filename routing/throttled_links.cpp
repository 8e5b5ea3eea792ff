#include "routing/throttled_links.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <string>

#include "routing/errors.hpp"

namespace ibsm::routing {

namespace {

class Components {
 public:
  explicit Components(std::size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0u); }
  std::uint32_t find(std::uint32_t x) {
    while (parent_[x] != x)
      x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  bool join(std::uint32_t a, std::uint32_t b) {
    a = find(a);
    b = find(b);
    if (a == b) return false;
    parent_[std::max(a, b)] = std::min(a, b);
    return true;
  }

 private:
  std::vector<std::uint32_t> parent_;
};

std::string name_link(const Topology& t, std::uint32_t s, const Link& l) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "0x%016llx/P%u <-> 0x%016llx/P%u",
                static_cast<unsigned long long>(t.switches[s].guid), unsigned{l.port},
                static_cast<unsigned long long>(t.switches[l.peer].guid), unsigned{l.peer_port});
  return buf;
}

std::string list(const std::vector<std::string>& names) {
  constexpr std::size_t kShown = 5;
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < kShown; ++i)
    out += (i == 0 ? "" : ", ") + names[i];
  if (names.size() > kShown) out += " and " + std::to_string(names.size() - kShown) + " more";
  return out;
}

}  // namespace

ThrottledLinks without_throttled_links(const Topology& topo) {
  ThrottledLinks out;
  out.topology = topo;
  const std::size_t n = topo.switches.size();
  // Healthy links first: the components they connect need no throttled link.
  Components healthy(n);
  for (std::uint32_t s = 0; s < n; ++s)
    for (const Link& l : topo.switches[s].links)
      if (l.kind == Link::Kind::kSwitch && !l.throttled) healthy.join(s, l.peer);
  // Each throttled link (taken once, from its lower end) joining two components still
  // apart is the only way between them: kept. Switch order makes the choice repeatable.
  std::vector<std::string> dropped, kept;
  auto key = [](std::uint32_t s, PortNum p) { return (static_cast<std::uint64_t>(s) << 8) | p; };
  std::vector<std::uint64_t> drop;  // (switch, port) of both directions
  for (std::uint32_t s = 0; s < n; ++s) {
    for (const Link& l : topo.switches[s].links) {
      if (l.kind != Link::Kind::kSwitch || !l.throttled) continue;
      if (l.peer < s || (l.peer == s && l.peer_port < l.port)) continue;
      if (healthy.join(s, l.peer)) {
        kept.push_back(name_link(topo, s, l));
        continue;
      }
      dropped.push_back(name_link(topo, s, l));
      drop.push_back(key(s, l.port));
      drop.push_back(key(l.peer, l.peer_port));
    }
  }
  std::sort(drop.begin(), drop.end());
  for (std::uint32_t s = 0; s < n; ++s) {
    auto& links = out.topology.switches[s].links;
    std::erase_if(links, [&](const Link& l) {
      return l.kind == Link::Kind::kSwitch &&
             std::binary_search(drop.begin(), drop.end(), key(s, l.port));
    });
  }
  out.dropped = static_cast<unsigned>(dropped.size());
  out.kept = static_cast<unsigned>(kept.size());
  if (!dropped.empty())
    out.warnings.push_back({kErrThrottledLinksAvoided,
                            "avoid_throttled_links: " + std::to_string(dropped.size()) +
                                " throttled link(s) left out of the routes: " + list(dropped)});
  if (!kept.empty())
    out.warnings.push_back(
        {kErrThrottledLinksKept,
         "avoid_throttled_links: " + std::to_string(kept.size()) +
             " throttled link(s) routed, the only way between switches: " + list(kept)});
  return out;
}

}  // namespace ibsm::routing
