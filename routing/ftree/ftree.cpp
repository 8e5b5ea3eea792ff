#include "routing/ftree/ftree.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "common/text.hpp"
#include "routing/errors.hpp"
#include "routing/escape_layer.hpp"
#include "routing/ftree/router.hpp"
#include "routing/ftree/tree_shape.hpp"
#include "routing/topology_check.hpp"

namespace ibsm::routing {
namespace {

// Which end ports are compute nodes and I/O nodes, which switches are roots, and how
// switches sort; GUIDs naming nothing become warnings.
struct Roles {
  std::vector<char> compute;  // per end port
  std::vector<char> io;       // per end port
  std::vector<std::uint32_t> roots;
  std::vector<std::uint64_t> sort_key;  // per switch
  std::vector<Error> warnings;
};

Roles assign_roles(const Topology& topo, const EngineConfig& config) {
  Roles r;
  const std::size_t nsw = topo.switches.size();
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> ports_by_guid;
  for (std::uint32_t e = 0; e < topo.end_ports.size(); ++e) {
    ports_by_guid[topo.end_ports[e].port_guid].push_back(e);
    if (topo.end_ports[e].node_guid != topo.end_ports[e].port_guid)
      ports_by_guid[topo.end_ports[e].node_guid].push_back(e);
  }
  std::unordered_map<std::uint64_t, std::uint32_t> switch_by_guid;
  for (std::uint32_t s = 0; s < nsw; ++s)
    switch_by_guid[topo.switches[s].guid] = s;

  const auto mark = [&](const std::vector<std::uint64_t>& guids, std::vector<char>& flag,
                        const char* file) {
    flag.assign(topo.end_ports.size(), 0);
    for (std::uint64_t g : guids) {
      auto it = ports_by_guid.find(g);
      if (it == ports_by_guid.end()) {
        r.warnings.push_back({kErrFtreeGuidUnknown, std::string(file) + " GUID " + hex_guid(g) +
                                                        " is no end port; ignored"});
        continue;
      }
      for (std::uint32_t e : it->second)
        flag[e] = 1;
    }
  };
  mark(config.io_guids, r.io, "io_guid_file");
  if (config.cn_guids.empty()) {
    // OpenSM: without cn_guid_file every CA port is a compute node.
    r.compute.assign(topo.end_ports.size(), 0);
    for (std::uint32_t e = 0; e < topo.end_ports.size(); ++e)
      r.compute[e] = !topo.end_ports[e].is_router && !r.io[e];
  } else {
    mark(config.cn_guids, r.compute, "cn_guid_file");
  }

  std::unordered_set<std::uint32_t> roots;
  for (std::uint64_t g : config.root_guids) {
    if (auto s = switch_by_guid.find(g); s != switch_by_guid.end()) {
      roots.insert(s->second);
    } else if (auto p = ports_by_guid.find(g);
               p != ports_by_guid.end() && topo.end_ports[p->second.front()].sw < nsw) {
      roots.insert(topo.end_ports[p->second.front()].sw);  // a CA's switch, as OpenSM
    } else {
      r.warnings.push_back(
          {kErrFtreeGuidUnknown, "root_guid_file GUID " + hex_guid(g) + " is no switch; ignored"});
    }
  }
  r.roots.assign(roots.begin(), roots.end());
  std::sort(r.roots.begin(), r.roots.end());

  r.sort_key.resize(nsw);
  std::unordered_map<std::uint64_t, std::uint64_t> ids(config.guid_ids.begin(),
                                                       config.guid_ids.end());
  for (std::uint32_t s = 0; s < nsw; ++s) {
    auto it = ids.find(topo.switches[s].guid);
    r.sort_key[s] = it != ids.end() ? it->second : topo.switches[s].guid;
  }
  return r;
}

// One destination of the routing order; a dummy stands for a compute node missing from a
// partly populated leaf (OpenSM's fabric_route_to_cns does the same to keep the leaves'
// counters aligned).
struct Entry {
  ftree::Destination d;
  bool dummy = false;
};

// Compute nodes in ca-order (leaves in index order, each leaf's ports in port order, with
// dummies), then the other end ports, then the switch LIDs (OpenSM: fabric_route_to_cns,
// fabric_route_to_non_cns, fabric_route_to_switches).
template <class MakeDestination>
std::vector<Entry> routing_order(const Topology& topo, const ftree::TreeShape& shape,
                                 const std::vector<std::vector<std::uint32_t>>& ports_of,
                                 std::size_t max_cn_per_leaf, const MakeDestination& destination) {
  std::vector<Entry> order;
  for (std::uint32_t leaf : shape.leaves) {
    std::size_t routed = 0;
    for (std::uint32_t e : ports_of[leaf]) {
      const ftree::Destination d = destination(e);
      if (!d.compute_node) continue;
      order.push_back({d});
      ++routed;
    }
    for (; routed < max_cn_per_leaf; ++routed)
      order.push_back({{.sw = leaf}, true});
  }
  const std::size_t nsw = topo.switches.size();
  std::vector<std::uint32_t> by_index(nsw);
  for (std::uint32_t s = 0; s < nsw; ++s)
    by_index[shape.index[s]] = s;
  for (std::uint32_t s : by_index)
    for (std::uint32_t e : ports_of[s]) {
      const ftree::Destination d = destination(e);
      if (!d.compute_node) order.push_back({d});
    }
  for (std::uint32_t s : by_index) {
    ftree::Destination d;
    d.sw = s;
    d.port = 0;
    d.base_lid = topo.switches[s].lid;
    d.lmc = topo.switches[s].lmc;
    d.counted = false;
    order.push_back({d});
  }
  return order;
}

class FtreeEngine final : public Engine {
 public:
  explicit FtreeEngine(EngineConfig config) : config_(std::move(config)) {}
  std::string_view name() const override { return "ftree"; }
  bool deadlock_free() const override {
    return config_.io_guids.empty() || config_.max_reverse_hops == 0;
  }
  bool complete() const override { return true; }

  Result<Routes> route(const Topology& topo) override {
    if (auto ok = validate_topology(topo); !ok) return fail(ok.error());
    Roles roles = assign_roles(topo, config_);

    const std::size_t nsw = topo.switches.size();
    ftree::ShapeInput in;
    in.is_leaf.assign(nsw, 0);
    for (std::uint32_t e = 0; e < topo.end_ports.size(); ++e)
      if (roles.compute[e] && topo.end_ports[e].sw < nsw) in.is_leaf[topo.end_ports[e].sw] = 1;
    in.roots = roles.roots;
    in.sort_key = roles.sort_key;
    in.index_from_root = config_.quasi_ftree_indexing;
    auto shape = ftree::find_tree_shape(topo, in);
    if (!shape) return fail(shape.error());

    // End ports per switch in port order: compute nodes in ca-order first.
    std::vector<std::vector<std::uint32_t>> ports_of(nsw);
    for (std::uint32_t e = 0; e < topo.end_ports.size(); ++e)
      if (topo.end_ports[e].sw < nsw) ports_of[topo.end_ports[e].sw].push_back(e);
    for (auto& v : ports_of)
      std::sort(v.begin(), v.end(), [&](std::uint32_t a, std::uint32_t b) {
        return topo.end_ports[a].sw_port < topo.end_ports[b].sw_port;
      });
    std::size_t max_cn_per_leaf = 0;
    for (std::uint32_t leaf : shape->leaves)
      max_cn_per_leaf = std::max<std::size_t>(
          max_cn_per_leaf, std::count_if(ports_of[leaf].begin(), ports_of[leaf].end(),
                                         [&](std::uint32_t e) { return roles.compute[e] != 0; }));

    ftree::Router router(topo, *shape, config_.connect_roots);
    const auto destination = [&](std::uint32_t e) {
      const EndPort& p = topo.end_ports[e];
      ftree::Destination d;
      d.sw = p.sw;
      d.port = p.sw_port;
      d.base_lid = p.base_lid;
      d.lmc = p.lmc;
      d.compute_node = roles.compute[e] != 0;
      d.reverse_hops = roles.io[e] ? config_.max_reverse_hops : 0;
      return d;
    };
    const std::vector<Entry> order =
        routing_order(topo, *shape, ports_of, max_cn_per_leaf, destination);
    // With LMC, all destinations' k-th LIDs are routed before any (k+1)-th: every LID
    // offset gets the whole ca-order spreading (applications mostly use the base LID),
    // and a port's later LIDs avoid the switches its earlier ones climbed through.
    unsigned offsets = 1;
    for (const Entry& en : order)
      offsets = std::max(offsets, 1U << en.d.lmc);
    std::vector<std::vector<std::uint32_t>> climbed(order.size());
    for (unsigned k = 0; k < offsets; ++k)
      for (std::size_t i = 0; i < order.size(); ++i) {
        if (order[i].dummy) {
          router.route_dummy(order[i].d.sw);
        } else if (k < (1U << order[i].d.lmc)) {
          router.route(order[i].d, k, climbed[i]);
        }
      }

    if (router.unreachable_from_leaves() > 0)
      return fail(kErrFtreeNotATree,
                  std::to_string(router.unreachable_from_leaves()) +
                      " (leaf switch, compute node LID) pairs have no up/down path, e.g. " +
                      example(topo, router) + "; this is no fat tree");
    Routes routes = router.take_routes();
    routes.warnings = std::move(roles.warnings);
    // Switch LIDs (and I/O nodes) that some leaf cannot reach going up then down: on a
    // degraded tree, a leaf that lost its link to one aggregation switch has no common
    // ancestor with that switch's peers in the other pods. They go on the escape layer.
    if (router.unreachable_other() > 0) {
      auto escaped = route_unreached_on_escape_layer(topo, routes, config_.max_vls, "ftree");
      if (!escaped) return fail(escaped.error());
    }
    return routes;
  }

 private:
  static std::string example(const Topology& topo, const ftree::Router& router) {
    const auto ex = router.examples();
    if (ex.empty()) return "none";
    return "switch " + hex_guid(topo.switches[ex.front().first].guid) + " to LID " +
           std::to_string(ex.front().second);
  }

  EngineConfig config_;
};

}  // namespace

std::unique_ptr<Engine> make_ftree_engine(const EngineConfig& config) {
  return std::make_unique<FtreeEngine>(config);
}

}  // namespace ibsm::routing
