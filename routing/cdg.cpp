#include "routing/cdg.hpp"

#include <array>
#include <cstdio>
#include <memory>

#include "routing/lid_owners.hpp"
#include "routing/sentinels.hpp"
#include "routing/torus/hop_vl_cdg.hpp"

namespace ibsm::routing {
namespace {

// Directed inter-switch channels numbered per switch in port order, so the channels
// leaving switch t are [first[t], first[t + 1]) and a dependency c1 -> c2 is one bit at
// dep_first[c1] + (c2 - first[head(c1)]).
class CdgChannels {
 public:
  explicit CdgChannels(const Topology& topo) {
    const std::size_t n = topo.switches.size();
    first_.assign(n + 1, 0);
    port_first_.assign(n + 1, 0);
    for (std::size_t s = 0; s < n; ++s)
      port_first_[s + 1] = port_first_[s] + topo.switches[s].num_ports + 1U;
    by_port_.assign(port_first_[n], kNone);
    for (std::uint32_t s = 0; s < n; ++s) {
      const Switch& sw = topo.switches[s];
      for (PortNum p = 1; p <= sw.num_ports; ++p)
        for (const Link& l : sw.links)
          if (l.port == p && l.kind == Link::Kind::kSwitch && l.peer < n) {
            by_port_[port_first_[s] + p] = static_cast<std::uint32_t>(all_.size());
            all_.push_back({s, p, l.peer});
            break;
          }
      first_[s + 1] = static_cast<std::uint32_t>(all_.size());
    }
    dep_first_.assign(all_.size() + 1, 0);
    for (std::size_t c = 0; c < all_.size(); ++c)
      dep_first_[c + 1] = dep_first_[c] + out_degree(all_[c].peer);
  }

  std::size_t size() const { return all_.size(); }
  const CdgChannel& operator[](std::uint32_t c) const { return all_[c]; }
  std::uint32_t first(std::uint32_t s) const { return first_[s]; }
  std::uint32_t out_degree(std::uint32_t s) const { return first_[s + 1] - first_[s]; }
  std::size_t dep_bits() const { return dep_first_.back(); }
  std::size_t dep_bit(std::uint32_t c1, std::uint32_t c2) const {
    return dep_first_[c1] + (c2 - first_[all_[c1].peer]);
  }
  std::size_t dep_first(std::uint32_t c1) const { return dep_first_[c1]; }

  // Channel switch s forwards `dlid` on, or kNone (delivered, dropped, or to an end port).
  std::uint32_t next(const Routes& routes, std::uint32_t s, Lid dlid) const {
    const Lft& lft = routes.lfts[s];
    if (dlid >= lft.size()) return kNone;
    const PortNum p = lft[dlid];
    if (p == 0 || std::size_t{port_first_[s]} + p >= port_first_[s + 1]) return kNone;
    return by_port_[port_first_[s] + p];
  }

 private:
  std::vector<CdgChannel> all_;
  std::vector<std::uint32_t> first_;
  std::vector<std::uint32_t> port_first_;
  std::vector<std::uint32_t> by_port_;  // [port_first_[s] + port] -> channel
  std::vector<std::size_t> dep_first_;
};

// Iterative three-colour DFS; returns one cycle (channel ids in path order) or nothing.
std::vector<std::uint32_t> find_cycle(const CdgChannels& ch,
                                      const std::vector<std::uint8_t>& deps) {
  enum : std::uint8_t { kWhite, kGrey, kBlack };
  std::vector<std::uint8_t> colour(ch.size(), kWhite);
  struct Frame {
    std::uint32_t c;
    std::uint32_t next;  // next out-channel index of head(c) to look at
  };
  std::vector<Frame> stack;
  for (std::uint32_t root = 0; root < ch.size(); ++root) {
    if (colour[root] != kWhite) continue;
    colour[root] = kGrey;
    stack.push_back({root, 0});
    while (!stack.empty()) {
      Frame& f = stack.back();
      const std::uint32_t head = ch[f.c].peer;
      const std::uint32_t degree = ch.out_degree(head);
      const std::size_t base = ch.dep_first(f.c);
      while (f.next < degree && deps[base + f.next] == 0)
        ++f.next;
      if (f.next == degree) {
        colour[f.c] = kBlack;
        stack.pop_back();
        continue;
      }
      const std::uint32_t c2 = ch.first(head) + f.next++;
      if (colour[c2] == kGrey) {
        std::vector<std::uint32_t> cycle;
        std::size_t i = stack.size();
        while (stack[i - 1].c != c2)
          --i;
        for (; i <= stack.size(); ++i)
          cycle.push_back(stack[i - 1].c);
        return cycle;
      }
      if (colour[c2] == kWhite) {
        colour[c2] = kGrey;
        stack.push_back({c2, 0});
      }
    }
  }
  return {};
}

}  // namespace

CdgReport check_channel_dependencies(const Topology& topo, const Routes& routes,
                                     const CdgOptions& options) {
  // Engines whose VL changes hop by hop (torus-2QoS) are judged on (channel, VL) nodes.
  if (!routes.sl2vl.empty()) return check_hop_vl_dependencies(topo, routes, options);
  const CdgChannels ch(topo);
  const std::size_t n = topo.switches.size();
  CdgReport out;
  out.channels = ch.size();
  if (routes.lfts.size() != n) return out;

  std::array<std::vector<std::uint8_t>, kVls> deps;  // per VL, allocated when first used
  std::array<bool, kVls> used{};
  std::vector<std::uint32_t> seed_stamp(std::size_t{n} * kVls, 0);  // [vl * n + s]
  std::vector<std::uint32_t> path_stamp(n, 0);
  std::vector<std::uint32_t> on_path;
  std::uint32_t gen = 0;

  std::vector<std::uint32_t> sources;  // switch of each routable end port
  std::vector<std::uint32_t> source_ports;
  for (std::uint32_t e = 0; e < topo.end_ports.size(); ++e) {
    const EndPort& ep = topo.end_ports[e];
    if (ep.sw < n && ep.base_lid != 0) {
      sources.push_back(ep.sw);
      source_ports.push_back(e);
    }
  }

  std::vector<std::uint32_t> source_switches;
  {
    std::vector<bool> seen(n, false);
    for (std::uint32_t s : sources)
      if (!seen[s]) {
        seen[s] = true;
        source_switches.push_back(s);
      }
  }

  const std::vector<LidOwner> owners = lid_owners(topo);
  std::array<std::vector<std::uint32_t>, kVls> seeds;
  for (std::size_t lid = 1; lid < owners.size(); ++lid) {
    if (owners[lid].kind == LidOwner::Kind::kNone) continue;
    const Lid dlid = static_cast<Lid>(lid);
    ++gen;
    for (auto& s : seeds)
      s.clear();
    // Seed switches per VL: where the sources of each VL enter the fabric. Without a VL
    // map every source switch seeds VL 0 (seeding the destination's own switch adds no
    // dependency: it delivers).
    if (!options.vl_of) {
      seeds[0] = source_switches;
      for (std::uint32_t s : source_switches)
        seed_stamp[s] = gen;
    }
    for (std::size_t i = 0; options.vl_of && i < sources.size(); ++i) {
      if (owners[lid].kind == LidOwner::Kind::kEndPort && owners[lid].index == source_ports[i])
        continue;  // a port does not send to itself
      const std::uint8_t vl = options.vl_of ? options.vl_of(source_ports[i], dlid) & 0x0F : 0;
      std::uint32_t& st = seed_stamp[std::size_t{vl} * n + sources[i]];
      if (st == gen) continue;
      st = gen;
      seeds[vl].push_back(sources[i]);
    }
    if (options.include_switch_sources)
      for (std::uint32_t s = 0; s < n; ++s) {
        const std::uint8_t vl = options.switch_vl_of ? options.switch_vl_of(s, dlid) & 0x0F : 0;
        std::uint32_t& st = seed_stamp[std::size_t{vl} * n + s];
        if (st != gen) {
          st = gen;
          seeds[vl].push_back(s);
        }
      }
    for (unsigned vl = 0; vl < kVls; ++vl) {
      if (seeds[vl].empty()) continue;
      used[vl] = true;
      if (deps[vl].empty()) deps[vl].assign(ch.dep_bits(), 0);
      // Switches on this VL's paths to dlid: each walked once (stops at a visited one,
      // which also ends forwarding loops).
      const std::uint32_t mark = gen * kVls + vl + 1;  // unique per (dlid, vl)
      on_path.clear();
      for (std::uint32_t s : seeds[vl]) {
        for (std::uint32_t cur = s; path_stamp[cur] != mark;) {
          path_stamp[cur] = mark;
          on_path.push_back(cur);
          const std::uint32_t c = ch.next(routes, cur, dlid);
          if (c == kNone) break;
          cur = ch[c].peer;
        }
      }
      for (std::uint32_t s : on_path) {
        const std::uint32_t c1 = ch.next(routes, s, dlid);
        if (c1 == kNone) continue;
        const std::uint32_t c2 = ch.next(routes, ch[c1].peer, dlid);
        if (c2 != kNone) deps[vl][ch.dep_bit(c1, c2)] = 1;
      }
    }
  }

  for (unsigned vl = 0; vl < kVls; ++vl) {
    if (!used[vl]) continue;
    CdgVl v;
    v.vl = static_cast<std::uint8_t>(vl);
    for (std::uint8_t b : deps[vl])
      v.dependencies += b;
    const std::vector<std::uint32_t> cycle = find_cycle(ch, deps[vl]);
    v.acyclic = cycle.empty();
    for (std::uint32_t c : cycle)
      v.cycle.push_back(ch[c]);
    out.vls.push_back(std::move(v));
  }
  return out;
}

std::string describe_cycle(const Topology& topo, const std::vector<CdgChannel>& cycle) {
  std::string out;
  char buf[40];
  for (std::size_t i = 0; i <= cycle.size() && !cycle.empty(); ++i) {
    const CdgChannel& c = cycle[i % cycle.size()];
    const std::uint64_t guid = c.sw < topo.switches.size() ? topo.switches[c.sw].guid : 0;
    std::snprintf(buf, sizeof buf, "0x%016llx/%u", static_cast<unsigned long long>(guid),
                  static_cast<unsigned>(c.port));
    out += (i ? " -> " : "") + std::string(buf);
  }
  return out;
}

}  // namespace ibsm::routing
