#include "routing/torus/hop_vl_cdg.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <unordered_set>

#include "routing/lid_owners.hpp"
#include "routing/sentinels.hpp"

namespace ibsm::routing {
namespace {

// One cycle of the graph (node ids in path order), iterative three-colour DFS.
std::vector<std::uint32_t> find_cycle(const std::vector<std::vector<std::uint32_t>>& adj) {
  enum : std::uint8_t { kWhite, kGrey, kBlack };
  std::vector<std::uint8_t> colour(adj.size(), kWhite);
  std::vector<std::pair<std::uint32_t, std::size_t>> stack;
  for (std::uint32_t root = 0; root < adj.size(); ++root) {
    if (colour[root] != kWhite || adj[root].empty()) continue;
    colour[root] = kGrey;
    stack.push_back({root, 0});
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      if (next == adj[v].size()) {
        colour[v] = kBlack;
        stack.pop_back();
        continue;
      }
      const std::uint32_t w = adj[v][next++];
      if (colour[w] == kGrey) {
        std::vector<std::uint32_t> cycle;
        std::size_t i = stack.size();
        while (stack[i - 1].first != w)
          --i;
        for (; i <= stack.size(); ++i)
          cycle.push_back(stack[i - 1].first);
        return cycle;
      }
      if (colour[w] == kWhite) {
        colour[w] = kGrey;
        stack.push_back({w, 0});
      }
    }
  }
  return {};
}

}  // namespace

CdgReport check_hop_vl_dependencies(const Topology& topo, const Routes& routes,
                                    const CdgOptions& options) {
  const std::size_t n = topo.switches.size();
  CdgReport out;
  if (routes.lfts.size() != n || routes.sl2vl.switches.size() != n) return out;
  // Channels: ISL ports, numbered through port_first[s] + port.
  std::vector<std::size_t> port_first(n + 1, 0);
  for (std::size_t s = 0; s < n; ++s)
    port_first[s + 1] = port_first[s] + topo.switches[s].num_ports + 1u;
  std::vector<std::uint32_t> channel(port_first[n], kNone);
  std::vector<CdgChannel> channels;
  std::vector<const Link*> link_at(port_first[n], nullptr);
  for (std::uint32_t s = 0; s < n; ++s)
    for (const Link& l : topo.switches[s].links) {
      if (l.port > topo.switches[s].num_ports) continue;
      link_at[port_first[s] + l.port] = &l;
      if (l.kind != Link::Kind::kSwitch || l.peer >= n) continue;
      channel[port_first[s] + l.port] = static_cast<std::uint32_t>(channels.size());
      channels.push_back({s, l.port, l.peer});
    }
  out.channels = channels.size();

  std::vector<std::vector<std::uint32_t>> adj(channels.size() * kVls);
  std::unordered_set<std::uint64_t> seen_edge;
  std::array<bool, kVls> used{};
  std::array<std::size_t, kVls> deps{};
  const auto walk = [&](std::uint32_t sw, PortNum in, unsigned sl, Lid dlid) {
    std::uint32_t prev = kNone;
    for (std::size_t hop = 0; hop <= n; ++hop) {
      const Lft& lft = routes.lfts[sw];
      if (dlid >= lft.size()) return;
      const PortNum o = lft[dlid];
      if (o == 0 || o > topo.switches[sw].num_ports) return;
      const std::uint32_t c = channel[port_first[sw] + o];
      if (c == kNone) return;  // delivered to an end port, or dropped
      const unsigned ports = topo.switches[sw].num_ports + 1u;
      const auto& table = routes.sl2vl.switches[sw];
      const std::size_t at = std::size_t{in} * ports + o;
      const unsigned vl = at < table.size() ? table[at][sl & 15u] & 15u : 0;
      used[vl] = true;
      const std::uint32_t node = c * kVls + vl;
      if (prev != kNone && seen_edge.insert((std::uint64_t{prev} << 32) | node).second) {
        adj[prev].push_back(node);
        ++deps[prev % kVls];
      }
      prev = node;
      in = link_at[port_first[sw] + o]->peer_port;
      sw = channels[c].peer;
    }
  };
  const std::vector<LidOwner> owners = lid_owners(topo);
  for (std::size_t lid = 1; lid < owners.size(); ++lid) {
    if (owners[lid].kind == LidOwner::Kind::kNone) continue;
    const Lid dlid = static_cast<Lid>(lid);
    for (std::uint32_t e = 0; e < topo.end_ports.size(); ++e) {
      const EndPort& ep = topo.end_ports[e];
      if (ep.sw >= n || ep.base_lid == 0) continue;
      if (owners[lid].kind == LidOwner::Kind::kEndPort && owners[lid].index == e) continue;
      const unsigned sl = options.vl_of ? options.vl_of(e, dlid) : routes.path_sl.sl(ep.sw, dlid);
      walk(ep.sw, ep.sw_port, sl, dlid);
    }
    if (options.include_switch_sources)
      for (std::uint32_t s = 0; s < n; ++s)
        walk(s, 0, 0, dlid);
  }
  const std::vector<std::uint32_t> cycle = find_cycle(adj);
  for (unsigned vl = 0; vl < kVls; ++vl) {
    if (!used[vl]) continue;
    CdgVl v;
    v.vl = static_cast<std::uint8_t>(vl);
    v.dependencies = deps[vl];
    if (!cycle.empty() && cycle.front() % kVls == vl) {
      v.acyclic = false;
      for (std::uint32_t node : cycle)
        v.cycle.push_back(channels[node / kVls]);
    }
    out.vls.push_back(std::move(v));
  }
  return out;
}

}  // namespace ibsm::routing
