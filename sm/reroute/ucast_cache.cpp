#include "sm/reroute/ucast_cache.hpp"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <vector>

namespace ibsm::sm::reroute {

using routing::Lid;
using routing::PortNum;

namespace {

// What a switch port leads to, independent of indexes: the peer switch's GUID and
// port, or the end port's GUID (port 0 of the key).
struct Far {
  std::uint64_t guid = 0;
  PortNum port = 0;
  bool operator==(const Far&) const = default;
};

using PortMap = std::vector<std::optional<Far>>;  // by local port number

PortMap far_ends(const routing::Topology& t, const routing::Switch& s) {
  PortMap m(static_cast<std::size_t>(s.num_ports) + 1);
  for (const routing::Link& l : s.links) {
    if (l.port >= m.size()) continue;
    if (l.kind == routing::Link::Kind::kSwitch)
      m[l.port] = Far{t.switches[l.peer].guid, l.peer_port};
    else
      m[l.port] = Far{t.end_ports[l.peer].port_guid, 0};
  }
  return m;
}

// LID -> GUID of the port that owns it (0: nobody).
std::vector<std::uint64_t> lid_owners(const routing::Topology& t, std::size_t size) {
  std::vector<std::uint64_t> owner(size, 0);
  auto own = [&](Lid base, std::uint8_t lmc, std::uint64_t guid) {
    for (std::size_t l = base; l < std::size_t{base} + (1u << lmc) && l < size; ++l)
      owner[l] = guid;
  };
  for (const routing::Switch& s : t.switches)
    if (s.lid) own(s.lid, s.lmc, s.guid);
  for (const routing::EndPort& e : t.end_ports)
    if (e.base_lid) own(e.base_lid, e.lmc, e.port_guid);
  return owner;
}

}  // namespace

routing::Routes merge_with_cache(const routing::Topology& then, const routing::Routes& before,
                                 const routing::Topology& now, routing::Routes fresh,
                                 CacheMerge& out) {
  out = CacheMerge{};
  std::size_t size = 0;
  for (const routing::Lft& l : fresh.lfts)
    size = std::max(size, l.size());
  out.lids = size;
  auto refuse = [&](std::string why) {
    out.why_not = std::move(why);
    out.recomputed = size;
    return fresh;
  };
  if (before.lfts.empty() || before.lfts.size() != then.switches.size())
    return refuse("no previous routes");
  if (!fresh.path_sl.empty() || !fresh.sl2vl.empty())
    return refuse("the engine's routes carry per-path SLs or SL2VL tables");
  std::unordered_map<std::uint64_t, std::size_t> old_index;
  for (std::size_t s = 0; s < then.switches.size(); ++s)
    old_index.emplace(then.switches[s].guid, s);
  std::unordered_map<std::uint64_t, std::uint32_t> new_index;
  for (std::size_t s = 0; s < now.switches.size(); ++s)
    new_index.emplace(now.switches[s].guid, static_cast<std::uint32_t>(s));
  // Per new switch and port, where the previous tables led: the next switch (new index),
  // kEnd for an end port or a switch that is gone, kLost for a link that is gone.
  constexpr std::uint32_t kEnd = UINT32_MAX;
  constexpr std::uint32_t kLost = UINT32_MAX - 1;
  std::vector<std::size_t> old_of(now.switches.size());
  std::vector<std::vector<std::uint32_t>> next(now.switches.size());
  for (std::size_t s = 0; s < now.switches.size(); ++s) {
    auto it = old_index.find(now.switches[s].guid);
    if (it == old_index.end()) return refuse("a new switch");
    old_of[s] = it->second;
    const PortMap was = far_ends(then, then.switches[it->second]);
    const PortMap is = far_ends(now, now.switches[s]);
    for (std::size_t p = 1; p < is.size(); ++p)
      if (is[p] && (p >= was.size() || was[p] != is[p])) return refuse("a new link");
    next[s].assign(was.size(), kEnd);
    for (std::size_t p = 1; p < was.size(); ++p) {
      if (!was[p]) continue;
      if (p >= is.size() || !is[p]) {
        next[s][p] = kLost;
      } else if (auto peer = new_index.find(was[p]->guid);
                 peer != new_index.end() && was[p]->port != 0) {
        next[s][p] = peer->second;
      }
    }
  }
  const std::vector<std::uint64_t> owner_now = lid_owners(now, size);
  const std::vector<std::uint64_t> owner_then = lid_owners(then, size);
  // Per destination, a switch needs a new entry when its previous route crossed a lost
  // link (found by following the previous tables, memoised along each walk), when the
  // LID has another owner now, or when the destination just became reachable from it.
  // Switches whose previous route did not cross keep it: it never visits a switch that
  // did (it would cross too), so mixing kept and new entries cannot loop, and a new
  // entry leads either along the new tree or into a kept route.
  enum : std::uint8_t { kUnknown, kKeep, kRenew };
  std::vector<std::uint8_t> state(now.switches.size());
  std::vector<std::uint32_t> walk;
  std::vector<bool> lid_renewed(size, false);
  auto old_entry = [&](std::size_t s, std::size_t lid) {
    const routing::Lft& old = before.lfts[old_of[s]];
    return lid < old.size() ? old[lid] : routing::kNoPath;
  };
  for (std::size_t lid = 1; lid < size; ++lid) {
    const bool owner_changed = owner_now[lid] != owner_then[lid];
    std::fill(state.begin(), state.end(), owner_changed ? kRenew : kUnknown);
    for (std::size_t s0 = 0; s0 < now.switches.size() && !owner_changed; ++s0) {
      walk.clear();
      std::uint32_t s = static_cast<std::uint32_t>(s0);
      std::uint8_t verdict = kKeep;
      while (true) {
        if (state[s] != kUnknown) {
          verdict = state[s];
          break;
        }
        const PortNum p = old_entry(s, lid);
        walk.push_back(s);
        if (p == routing::kNoPath || p == 0) break;  // unreachable before, or arrived
        const std::uint32_t n = p < next[s].size() ? next[s][p] : kEnd;
        if (n == kLost) {
          verdict = kRenew;
          break;
        }
        if (n == kEnd) break;                          // delivered to an end port
        if (walk.size() > now.switches.size()) break;  // a loop before: leave it be
        s = n;
      }
      for (std::uint32_t w : walk)
        state[w] = verdict;
    }
    for (std::size_t s = 0; s < now.switches.size(); ++s) {
      routing::Lft& neu = fresh.lfts[s];
      if (lid >= neu.size()) continue;
      const PortNum was = old_entry(s, lid);
      const bool renew = state[s] == kRenew || (was == routing::kNoPath && neu[lid] != was);
      if (!renew) neu[lid] = was;
      if (renew) ++out.renewed_entries;
      if (neu[lid] != was) ++out.changed_entries;
      if (renew) lid_renewed[lid] = true;
    }
  }
  for (std::size_t lid = 1; lid < size; ++lid)
    out.recomputed += lid_renewed[lid] ? 1 : 0;
  out.used = true;
  return fresh;
}

}  // namespace ibsm::sm::reroute
