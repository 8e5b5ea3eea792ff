#include "routing/torus/torus_2qos.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <tuple>

#include "common/text.hpp"
#include "routing/errors.hpp"
#include "routing/lid_owners.hpp"
#include "routing/topology_check.hpp"
#include "routing/torus/torus_config.hpp"
#include "routing/torus/torus_layout.hpp"
#include "routing/torus/torus_rules.hpp"

namespace ibsm::routing {
namespace {

using torus::Coord;
using torus::kDims;
using torus::kNoSwitch;
using torus::TorusLayout;

// Next-hop decisions of OpenSM's lft_port() (osm_torus.c) on a placed torus.
class DorRouter {
 public:
  explicit DorRouter(const TorusLayout& t) : t_(t) {}

  // The switch one step from s in direction group g (kNoSwitch: no link that way).
  std::uint32_t step(std::uint32_t s, std::uint8_t g, const Topology& topo) const {
    const auto& ports = t_.groups[s][g];
    if (ports.empty()) return kNoSwitch;
    for (const Link& l : topo.switches[s].links)
      if (l.port == ports.front()) return l.peer;
    return kNoSwitch;
  }

  // Direction (+1/-1, 0: none) in which dimension d's ring from s reaches tsw: the
  // shortest one if the ring is intact that way, else the long way round.
  int ring_dir_path(std::uint32_t s, std::uint32_t tsw, unsigned d, const Topology& topo) const {
    const int first = torus::ring_direction(t_.coord[s][d], t_.coord[tsw][d], t_.radix[d]);
    if (first == 0) return 0;
    for (int dir : {first, -first}) {
      std::uint32_t cur = s;
      for (unsigned k = 0; k < t_.radix[d] && cur != kNoSwitch; ++k) {
        cur = step(cur, torus::dir_group(d, dir > 0), topo);
        if (cur == tsw) return dir;
      }
    }
    return 0;
  }

  // Direction group for progress in dimension d from s towards dsw, if any.
  int next_hop(std::uint32_t s, std::uint32_t dsw, unsigned d, const Topology& topo) const {
    Coord turn = t_.coord[s];
    turn[d] = t_.coord[dsw][d];
    const std::uint32_t tsw = t_.at(turn);
    int dir = 0;
    if (tsw != kNoSwitch) {
      // The turning switch is there: head for it by the shortest intact way.
      dir = ring_dir_path(s, tsw, d, topo);
    } else if (d + 1 < kDims) {
      // It failed: head for it the shortest way while links last (OpenSM next_hop_idx);
      // the last dimension has no later one to turn into.
      dir = torus::ring_direction(t_.coord[s][d], t_.coord[dsw][d], t_.radix[d]);
      if (dir != 0 && t_.groups[s][torus::dir_group(d, dir > 0)].empty()) dir = 0;
    }
    return dir == 0 ? -1 : torus::dir_group(d, dir > 0);
  }

  // Direction group from s towards dsw (s != dsw), -1 when DOR finds none.
  int route(std::uint32_t s, std::uint32_t dsw, const Topology& topo) const {
    for (unsigned d = 0; d < kDims; ++d) {
      if (t_.coord[s][d] == t_.coord[dsw][d]) continue;
      if (int g = next_hop(s, dsw, d, topo); g >= 0) return g;
      // No progress in d: turn onto a later dimension that still differs.
      for (unsigned e = d + 1; e < kDims; ++e)
        if (t_.coord[s][e] != t_.coord[dsw][e])
          if (int g = next_hop(s, dsw, e, topo); g >= 0) return g;
      return -1;
    }
    return -1;
  }

 private:
  const TorusLayout& t_;
};

// The order destinations take turns on parallel links: by destination switch, then by
// the port they hang off in port_order (listed ports first, the rest ascending), then by
// LID, as OpenSM's torus_lft visits a destination switch's CA ports.
std::vector<Lid> destination_order(const Topology& topo, const std::vector<LidOwner>& owners,
                                   const std::vector<PortNum>& port_order) {
  std::array<unsigned, 256> rank{};
  for (unsigned p = 0; p < rank.size(); ++p)
    rank[p] = static_cast<unsigned>(port_order.size()) + p;
  for (unsigned i = 0; i < port_order.size(); ++i)
    rank[port_order[i]] = i;
  struct Key {
    std::uint32_t sw;
    unsigned rank;
    Lid lid;
  };
  std::vector<Key> keys;
  for (std::size_t lid = 1; lid < owners.size(); ++lid) {
    const LidOwner& o = owners[lid];
    if (o.kind == LidOwner::Kind::kSwitch)
      keys.push_back({o.index, 0, static_cast<Lid>(lid)});  // port 0 first, as OpenSM
    else if (o.kind == LidOwner::Kind::kEndPort && topo.end_ports[o.index].sw != UINT32_MAX)
      keys.push_back({topo.end_ports[o.index].sw, 1 + rank[topo.end_ports[o.index].sw_port],
                      static_cast<Lid>(lid)});
  }
  std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    return std::tie(a.sw, a.rank, a.lid) < std::tie(b.sw, b.rank, b.lid);
  });
  std::vector<Lid> out;
  out.reserve(keys.size());
  for (const Key& k : keys)
    out.push_back(k.lid);
  return out;
}

// portgroup_max_ports bounds the parallel links of one direction and the end ports of a
// switch (port 0 counted with them); OpenSM fails to build the torus beyond it
// (ERR 4E17/4E18/4E1D).
Status check_port_groups(const Topology& topo, const TorusLayout& t, unsigned max_ports,
                         const std::string& file_name) {
  std::vector<unsigned> local(topo.switches.size(), 1);  // port 0
  for (const EndPort& ep : topo.end_ports)
    if (ep.sw < local.size()) ++local[ep.sw];
  for (std::uint32_t s = 0; s < topo.switches.size(); ++s) {
    std::size_t most = local[s];
    for (const auto& g : t.groups[s])
      most = std::max(most, g.size());
    if (most > max_ports)
      return fail(kErrTorusMismatch, "switch " + hex_guid(topo.switches[s].guid) +
                                         " has a port group of " + std::to_string(most) +
                                         " ports, above portgroup_max_ports " +
                                         std::to_string(max_ports) + " (" + file_name + ")");
  }
  return {};
}

class Torus2QosEngine final : public Engine {
 public:
  explicit Torus2QosEngine(const EngineConfig& config) : file_(config.torus_config) {}
  std::string_view name() const override { return "torus-2QoS"; }
  Result<Routes> route(const Topology& topo) override;
  // The SM's route report checks (channel, VL) dependencies with the per-hop tables
  // (routing/torus/hop_vl_cdg.hpp), so the claim is verified on every result.
  bool deadlock_free() const override { return true; }

 private:
  EngineConfig::Text file_;
};

Result<Routes> Torus2QosEngine::route(const Topology& topo) {
  if (Status st = validate_topology(topo); !st) return fail(st.error());
  if (!file_.configured())
    return fail(kErrTorusConfigMissing, "torus-2QoS needs torus_config (torus-2QoS.conf)");
  auto cfg = torus::parse_torus_config(file_);
  if (!cfg.ok()) return fail(cfg.error());
  auto placed = torus::place_switches(topo, *cfg, file_.path);
  if (!placed.ok()) return fail(placed.error());
  const TorusLayout& t = *placed;
  if (auto st = check_port_groups(topo, t, cfg->portgroup_max_ports, file_.path); !st)
    return fail(st.error());
  const DorRouter router(t);

  const std::size_t n = topo.switches.size();
  const std::vector<LidOwner> owners = lid_owners(topo);
  Routes routes;
  routes.lfts.assign(n, Lft(owners.size(), kNoPath));
  routes.path_sl.lids = owners.size();
  routes.path_sl.table.assign(n * owners.size(), 0);
  unsigned wrapping = 0;
  for (unsigned d = 0; d < kDims; ++d)
    wrapping += t.wraps[d] ? 1 : 0;
  routes.path_sl.layers = 1u << wrapping;
  routes.path_sl.sls = 1u << wrapping;
  routes.path_sl.requester_bits = 0x8;  // SL bit 3: the QoS level, the requester's choice

  // Round-robin over parallel links, separately for end-port and switch destinations
  // (OpenSM's ca_dlid_cnt / sw_dlid_cnt per port group).
  std::vector<std::array<std::array<std::uint32_t, 2>, 2 * kDims>> rr(n);
  std::size_t unroutable = 0;
  std::string first_unroutable;
  for (const Lid lid : destination_order(topo, owners, cfg->port_order)) {
    const LidOwner& o = owners[lid];
    std::uint32_t dsw = kNoSwitch;
    PortNum local = 0;
    const bool ca = o.kind == LidOwner::Kind::kEndPort;
    if (o.kind == LidOwner::Kind::kSwitch) {
      dsw = o.index;
    } else if (ca && topo.end_ports[o.index].sw < n) {
      dsw = topo.end_ports[o.index].sw;
      local = topo.end_ports[o.index].sw_port;
    }
    if (dsw == kNoSwitch) continue;
    for (std::uint32_t s = 0; s < n; ++s) {
      routes.path_sl.table[s * owners.size() + lid] =
          torus::path_sl_bits(t.coord[s], t.coord[dsw], t.radix, t.wraps);
      if (s == dsw) {
        routes.lfts[s][lid] = local;
        continue;
      }
      const int g = router.route(s, dsw, topo);
      if (g < 0) {
        if (unroutable++ == 0)
          first_unroutable = hex_guid(topo.switches[s].guid) + " -> LID " + std::to_string(lid);
        continue;
      }
      const auto& ports = t.groups[s][static_cast<unsigned>(g)];
      std::uint32_t& count = rr[s][static_cast<unsigned>(g)][ca ? 0 : 1];
      routes.lfts[s][lid] = ports[count++ % ports.size()];
    }
  }
  if (unroutable > 0)
    routes.warnings.push_back(Error{
        kErrTorusUnroutable, std::to_string(unroutable) +
                                 " (switch, LID) pairs have no route, first " + first_unroutable});

  // SL2VL: by the dimensions of input and output port (OpenSM's sl2vl_entry).
  routes.sl2vl.switches.resize(n);
  for (std::uint32_t s = 0; s < n; ++s) {
    const unsigned ports = topo.switches[s].num_ports + 1u;
    auto& tables = routes.sl2vl.switches[s];
    tables.resize(std::size_t{ports} * ports);
    for (unsigned in = 0; in < ports; ++in)
      for (unsigned out = 0; out < ports; ++out)
        tables[std::size_t{in} * ports + out] = torus::switch_sl2vl(
            torus::port_dimension(t.port_dir[s][in]), torus::port_dimension(t.port_dir[s][out]));
  }
  routes.sl2vl.end_ports.assign(topo.end_ports.size(), torus::end_port_sl2vl());
  return routes;
}

}  // namespace

std::unique_ptr<Engine> make_torus_2qos_engine(const EngineConfig& config) {
  return std::make_unique<Torus2QosEngine>(config);
}

}  // namespace ibsm::routing
