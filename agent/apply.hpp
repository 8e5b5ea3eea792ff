// Runs a plan's actions in order. Nothing runs when the plan has errors or a
// disruptive action on a protected interface lacks --force; a failing action
// stops the run, and the report says what was done and what was not (the next
// plan shows the rest, because every action is derived from observed state).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agent/fs.hpp"
#include "agent/kernel.hpp"
#include "agent/plan.hpp"

namespace ibsm::agent {

struct ApplyReport {
  std::vector<std::string> done;
  std::vector<std::string> not_done;
  std::vector<std::string> refused;  // disruptive actions blocked without --force
  std::optional<Error> error;
  bool ok() const { return !error && refused.empty(); }
};

ApplyReport apply_plan(const Plan& plan, Fs& fs, Kernel& kernel,
                       const std::map<std::string, std::string>& protected_ifaces, bool force);

// Runs one action.
Status run_action(const Action& a, Fs& fs, Kernel& kernel);

}  // namespace ibsm::agent
