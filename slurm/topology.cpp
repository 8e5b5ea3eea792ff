// The tree of switches Slurm's topology/tree takes (slurm/topology.hpp).
#include "slurm/topology.hpp"

#include <algorithm>
#include <climits>
#include <deque>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include <spdlog/fmt/fmt.h>

namespace ibsm::slurm {

namespace {

constexpr std::size_t kMaxSwitchName = 48;  // Slurm takes up to 64
constexpr unsigned kNoLevel = UINT_MAX;

bool slurm_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

bool blank(char c) {
  return c == ' ' || c == '\t';
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && blank(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && blank(s.back()))
    s.remove_suffix(1);
  return s;
}

// The hosts of the fabric, by name: their ports in rail order.
using HostPorts = std::map<std::string, std::vector<const HostPortInput*>>;

// Levels by breadth-first search from the switches with a CA; kNoLevel where none is
// reached.
std::vector<unsigned> levels_from(const FabricInput& f, const std::vector<bool>& leaf) {
  std::vector<unsigned> level(f.switches.size(), kNoLevel);
  std::deque<std::uint32_t> queue;
  for (std::uint32_t s = 0; s < f.switches.size(); ++s)
    if (leaf[s]) {
      level[s] = 0;
      queue.push_back(s);
    }
  while (!queue.empty()) {
    const std::uint32_t s = queue.front();
    queue.pop_front();
    for (const std::uint32_t p : f.switches[s].peers)
      if (p < level.size() && level[p] == kNoLevel) {
        level[p] = level[s] + 1;
        queue.push_back(p);
      }
  }
  return level;
}

// Parents for the tree switches of one level among their neighbours one level up: the
// fewest that cover them, greedily. Returns the parents chosen.
std::vector<std::uint32_t> choose_parents(const FabricInput& f, const std::vector<unsigned>& level,
                                          const std::vector<std::uint32_t>& children, unsigned k,
                                          std::vector<std::uint32_t>& parent) {
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> cover;
  for (const std::uint32_t c : children)
    for (const std::uint32_t p : f.switches[c].peers)
      if (p < level.size() && level[p] == k + 1) cover[p].push_back(c);
  for (auto& [p, kids] : cover) {
    std::ranges::sort(kids);
    kids.erase(std::unique(kids.begin(), kids.end()), kids.end());
  }
  std::vector<std::uint32_t> chosen;
  for (;;) {
    std::uint32_t best = kNoSwitch;
    std::size_t best_count = 0;
    for (const auto& [p, kids] : cover) {
      const auto count = static_cast<std::size_t>(
          std::ranges::count_if(kids, [&](std::uint32_t c) { return parent[c] == kNoSwitch; }));
      if (count == 0) continue;
      const auto key = std::make_tuple(count, ~f.switches[p].guid, ~p);
      if (best == kNoSwitch || key > std::make_tuple(best_count, ~f.switches[best].guid, ~best)) {
        best = p;
        best_count = count;
      }
    }
    if (best == kNoSwitch) break;
    for (const std::uint32_t c : cover[best])
      if (parent[c] == kNoSwitch) parent[c] = best;
    chosen.push_back(best);
    cover.erase(best);
  }
  std::ranges::sort(chosen);
  return chosen;
}

// Unique Slurm names for the tree switches, in GUID order: a repeat gets its GUID.
std::vector<std::string> switch_names(const FabricInput& f, const std::vector<std::uint32_t>& tree,
                                      std::set<std::string>& taken) {
  std::vector<std::uint32_t> order = tree;
  std::ranges::sort(order, [&](std::uint32_t a, std::uint32_t b) {
    return std::tie(f.switches[a].guid, a) < std::tie(f.switches[b].guid, b);
  });
  std::unordered_map<std::uint32_t, std::string> name_of;
  for (const std::uint32_t s : order) {
    std::string name = safe_switch_name(f.switches[s].name);
    if (taken.contains(name)) name += fmt::format("_{:016x}", f.switches[s].guid);
    for (unsigned n = 2; taken.contains(name); ++n)
      name = fmt::format("{}_{}", safe_switch_name(f.switches[s].name), n);
    taken.insert(name);
    name_of[s] = name;
  }
  std::vector<std::string> names;
  names.reserve(tree.size());
  for (const std::uint32_t s : tree)
    names.push_back(name_of[s]);
  return names;
}

}  // namespace

std::string host_name(std::string_view raw) {
  raw = trimmed(raw);
  const std::size_t end = std::ranges::find_if(raw, blank) - raw.begin();
  raw = raw.substr(0, end);
  if (raw.empty() || !std::ranges::all_of(raw, slurm_char)) return {};
  return std::string(raw);
}

std::string safe_switch_name(std::string_view raw) {
  raw = trimmed(raw);
  std::string s;
  for (const char c : raw.substr(0, kMaxSwitchName))
    s += slurm_char(c) ? c : '_';
  if (s.empty()) s = "switch";
  std::size_t digits = 0;
  while (digits < s.size() && s[s.size() - 1 - digits] >= '0' && s[s.size() - 1 - digits] <= '9')
    ++digits;
  if (digits > kMaxSuffixDigits) s += '_';
  return s;
}

Topology build_topology(const FabricInput& f, const Options& o) {
  Topology t;
  const std::size_t n = f.switches.size();

  // Hosts by name, each port a rail.
  HostPorts by_host;
  std::set<std::string> excluded;
  for (const HostPortInput& hp : f.host_ports) {
    if (hp.sw >= n) continue;
    std::string name = host_name(hp.name);
    if (name.empty()) {
      t.skipped.push_back({hp.name, hp.guid, hp.port,
                           "not a name Slurm takes (A-Z a-z 0-9 . _ - before the first blank)"});
      continue;
    }
    if (o.keep_host && !o.keep_host(name)) {
      excluded.insert(name);
      continue;
    }
    by_host[name].push_back(&hp);
  }
  t.excluded = excluded.size();

  std::vector<std::vector<std::string>> hosts_of(n);
  for (auto& [name, ports] : by_host) {
    std::ranges::sort(ports, [](const HostPortInput* a, const HostPortInput* b) {
      return std::tie(a->description, a->guid, a->port) <
             std::tie(b->description, b->guid, b->port);
    });
    if (o.rails == Rails::kAll) {
      for (const HostPortInput* p : ports)
        if (hosts_of[p->sw].empty() || hosts_of[p->sw].back() != name)
          hosts_of[p->sw].push_back(name);
    } else if (o.rail < ports.size()) {
      hosts_of[ports[o.rail]->sw].push_back(name);
    } else {
      t.skipped.push_back({name, ports.front()->guid, ports.front()->port,
                           fmt::format("no rail {}: {} port{} linked to a switch", o.rail,
                                       ports.size(), ports.size() == 1 ? "" : "s")});
      continue;
    }
    ++t.hosts;
  }
  std::ranges::sort(t.skipped, [](const Skipped& a, const Skipped& b) {
    return std::tie(a.name, a.guid, a.port) < std::tie(b.name, b.guid, b.port);
  });

  std::vector<std::uint32_t> current;  // the leaves: switches with hosts placed
  for (std::uint32_t s = 0; s < n; ++s)
    if (!hosts_of[s].empty()) current.push_back(s);
  if (current.empty()) return t;

  // Levels from every switch with a CA, whether its hosts are placed or not: a leaf
  // whose hosts are filtered out or on another rail is still no switch above the others.
  std::vector<bool> has_ca(n, false);
  for (const HostPortInput& hp : f.host_ports)
    if (hp.sw < n) has_ca[hp.sw] = true;
  const std::vector<unsigned> level = levels_from(f, has_ca);
  // The tree, level by level from the leaves.
  std::vector<std::uint32_t> parent(n, kNoSwitch);
  std::vector<std::uint32_t> tree = current;
  for (unsigned k = 0; !current.empty(); ++k) {
    current = choose_parents(f, level, current, k, parent);
    tree.insert(tree.end(), current.begin(), current.end());
  }

  // One core of several does not stand for the whole top level: the virtual top does.
  std::vector<std::uint32_t> roots;
  for (const std::uint32_t s : tree)
    if (parent[s] == kNoSwitch) roots.push_back(s);
  if (roots.size() == 1 && level[roots[0]] > 0 && std::ranges::count(level, level[roots[0]]) > 1) {
    const std::uint32_t core = roots[0];
    for (const std::uint32_t s : tree)
      if (parent[s] == core) parent[s] = kNoSwitch;
    std::erase(tree, core);
  }

  std::set<std::string> taken;
  const std::vector<std::string> names = switch_names(f, tree, taken);
  // Output order: by level, then name.
  std::vector<std::size_t> order(tree.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::ranges::sort(order, [&](std::size_t a, std::size_t b) {
    return std::tie(level[tree[a]], names[a]) < std::tie(level[tree[b]], names[b]);
  });
  std::unordered_map<std::uint32_t, std::uint32_t> out_index;  // switch -> in t.switches
  for (const std::size_t i : order) {
    const std::uint32_t s = tree[i];
    out_index[s] = static_cast<std::uint32_t>(t.switches.size());
    TreeSwitch ts;
    ts.name = names[i];
    ts.guid = f.switches[s].guid;
    ts.level = level[s];
    ts.hosts = std::move(hosts_of[s]);
    t.switches.push_back(std::move(ts));
  }
  std::vector<std::uint32_t> tops;
  for (const std::size_t i : order) {
    const std::uint32_t s = tree[i];
    if (parent[s] == kNoSwitch) {
      tops.push_back(out_index[s]);
      continue;
    }
    const std::uint32_t me = out_index[s], up = out_index[parent[s]];
    t.switches[me].parent = up;
    t.switches[up].children.push_back(me);
  }
  if (tops.size() > 1) {
    TreeSwitch top;
    top.name = "ibsm_top";
    for (unsigned k = 2; taken.contains(top.name); ++k)
      top.name = fmt::format("ibsm_top_{}", k);
    const auto up = static_cast<std::uint32_t>(t.switches.size());
    for (const std::uint32_t c : tops) {
      top.level = std::max(top.level, t.switches[c].level + 1);
      t.switches[c].parent = up;
    }
    top.children = std::move(tops);
    t.switches.push_back(std::move(top));
    t.virtual_top = true;
  }
  return t;
}

}  // namespace ibsm::slurm
