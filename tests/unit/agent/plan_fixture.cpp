#include "plan_fixture.hpp"

#include <gtest/gtest.h>

#include "agent/apply.hpp"
#include "agent/netdev_reader.hpp"
#include "agent/port_source.hpp"

namespace ibsm::agent::testing {

Observed observe_tree(Tree& t) {
  Observed o;
  o.devices = *SysfsPortSource(t.fs()).devices();
  o.netdevs = read_netdevs(t.fs());
  o.default_route_interfaces = read_default_route_interfaces(t.fs());
  return o;
}

PlanRun::PlanRun(const std::string& toml, bool build) {
  if (build) build_host(tree);
  auto c = parse_node_file(toml, "node.toml");
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
  if (c.ok()) config = *c;
  replan();
}

Plan& PlanRun::replan(Backend b, bool prune) {
  backend = b;
  observed = observe_tree(tree);
  auto roce_netdev = [&](const Observed& o, const std::string& name) {
    for (const auto& d : o.devices)
      for (const auto& p : d.ports)
        for (const auto& g : p.gids)
          if (g.ndev == name) return true;
    return false;
  };
  for (auto& n : observed.netdevs)
    if (n.ipoib() || roce_netdev(observed, n.name)) n.addresses = kernel.addresses(n.name);
  PlanContext ctx{config, observed, tree.fs(), kernel, backend, prune};
  plan = make_plan(ctx);
  return plan;
}

bool PlanRun::apply(bool force) {
  auto report = apply_plan(plan, tree.fs(), kernel, protected_interfaces(config, observed), force);
  return report.ok();
}

std::vector<std::uint16_t> error_ids(const Plan& p) {
  std::vector<std::uint16_t> out;
  for (const auto& e : p.errors)
    out.push_back(e.id.code);
  return out;
}

std::vector<std::string> described(const Plan& p) {
  return described(p.actions);
}

std::vector<std::string> described(const std::vector<Action>& actions) {
  std::vector<std::string> out;
  for (const auto& a : actions)
    out.push_back(a.describe());
  return out;
}

}  // namespace ibsm::agent::testing
