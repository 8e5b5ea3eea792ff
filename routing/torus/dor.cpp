#include "routing/torus/dor.hpp"

#include <optional>

#include "routing/errors.hpp"
#include "routing/hop_matrix.hpp"
#include "routing/lid_owners.hpp"
#include "routing/topology_check.hpp"
#include "routing/torus/port_order_file.hpp"

namespace ibsm::routing {
namespace {

class DorEngine final : public Engine {
 public:
  explicit DorEngine(const EngineConfig& config) : order_file_(config.port_search_ordering) {}
  std::string_view name() const override { return "dor"; }
  Result<Routes> route(const Topology& topo) override;

 private:
  EngineConfig::Text order_file_;
};

// The switch each LID's packets are delivered by, and the port they leave it by there.
struct LidDelivery {
  std::uint32_t sw = UINT32_MAX;
  PortNum port = kNoPath;
};

LidDelivery delivery_of(const Topology& topo, const LidOwner& o) {
  if (o.kind == LidOwner::Kind::kSwitch) return {o.index, 0};
  if (o.kind == LidOwner::Kind::kEndPort) {
    const EndPort& ep = topo.end_ports[o.index];
    if (ep.sw < topo.switches.size()) return {ep.sw, ep.sw_port};
  }
  return {};
}

Result<Routes> DorEngine::route(const Topology& topo) {
  if (Status st = validate_topology(topo); !st) return fail(st.error());
  std::vector<Error> warnings;
  std::vector<torus::PortOrderLine> lines;
  if (order_file_.configured()) {
    auto parsed = torus::parse_port_order(order_file_);
    if (!parsed.ok()) return fail(parsed.error());
    lines = std::move(parsed).value();
  }
  const auto orders = torus::port_orders(topo, lines, order_file_.path, warnings);
  auto routes = route_dor(topo, orders);
  if (routes.ok())
    routes->warnings.insert(routes->warnings.begin(), warnings.begin(), warnings.end());
  return routes;
}

}  // namespace

Result<Routes> route_dor(const Topology& topo, const std::vector<std::vector<PortNum>>& orders) {
  if (Status st = validate_topology(topo); !st) return fail(st.error());
  if (orders.size() != topo.switches.size())
    return fail(kErrTopologyInvalid, "dor: a port search order for each of the " +
                                         std::to_string(topo.switches.size()) + " switches needed");
  Routes routes;
  auto hm = HopMatrix::compute(topo);
  if (!hm.ok()) return fail(hm.error());
  const HopMatrix& hops = *hm;

  const std::size_t n = topo.switches.size();
  // peer[s][port]: the switch behind each port (UINT32_MAX: none or an end port).
  std::vector<std::vector<std::uint32_t>> peer(n);
  std::vector<std::vector<std::uint32_t>> load(n);  // routes per output port (LIDs)
  for (std::uint32_t s = 0; s < n; ++s) {
    const Switch& sw = topo.switches[s];
    peer[s].assign(std::size_t{sw.num_ports} + 1, UINT32_MAX);
    load[s].assign(std::size_t{sw.num_ports} + 1, 0);
    for (const Link& l : sw.links)
      if (l.kind == Link::Kind::kSwitch && l.port <= sw.num_ports) peer[s][l.port] = l.peer;
  }

  const std::vector<LidOwner> owners = lid_owners(topo);
  routes.lfts.assign(n, Lft(owners.size(), kNoPath));
  for (std::size_t lid = 1; lid < owners.size(); ++lid) {
    const LidDelivery d = delivery_of(topo, owners[lid]);
    if (d.sw == UINT32_MAX) continue;
    const std::uint8_t* dist = hops.row(d.sw);
    for (std::uint32_t s = 0; s < n; ++s) {
      if (s == d.sw) {
        routes.lfts[s][lid] = d.port;
        continue;
      }
      if (dist[s] == HopMatrix::kUnreachable) continue;
      // As OpenSM's osm_switch_recommend_path with dor: the first minimal port in search
      // order fixes the neighbour; among the (parallel) ports to that neighbour the one
      // with the fewest routes so far wins, the earliest in search order on ties.
      std::uint32_t next = UINT32_MAX;
      PortNum best = kNoPath;
      for (PortNum p : orders[s]) {
        const std::uint32_t q = peer[s][p];
        if (q == UINT32_MAX || dist[q] + 1 != dist[s]) continue;
        if (next == UINT32_MAX) next = q;
        if (q != next) continue;
        if (best == kNoPath || load[s][p] < load[s][best]) best = p;
      }
      if (best == kNoPath) continue;
      ++load[s][best];
      routes.lfts[s][lid] = best;
    }
  }
  return routes;
}

std::unique_ptr<Engine> make_dor_engine(const EngineConfig& config) {
  return std::make_unique<DorEngine>(config);
}

}  // namespace ibsm::routing
