// Plans a node file against the fake host of host_fixture.hpp.
#pragma once

#include <string>

#include "agent/node_file.hpp"
#include "agent/planner.hpp"
#include "agent/tree_kernel.hpp"
#include "host_fixture.hpp"

namespace ibsm::agent::testing {

Observed observe_tree(Tree& t);

struct PlanRun {
  Tree tree;
  TreeKernel kernel{tree.fs()};
  NodeConfig config;
  Observed observed;
  Plan plan;
  // Parses `toml` (failing the test on error), observes the tree and plans.
  explicit PlanRun(const std::string& toml, bool build = true);
  // Re-observes and re-plans (after the tree changed).
  Plan& replan(Backend backend = Backend::kDirect, bool prune = false);
  // Applies the current plan; true on success.
  bool apply(bool force = false);
  Backend backend = Backend::kDirect;
};

// Error IDs of a plan, in order.
std::vector<std::uint16_t> error_ids(const Plan& p);
// describe() of every action.
std::vector<std::string> described(const Plan& p);
std::vector<std::string> described(const std::vector<Action>& actions);

}  // namespace ibsm::agent::testing
