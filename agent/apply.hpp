// Every file apply writes or removes keeps its previous version under
// /var/lib/ibsm-agent/previous/<path>; when an action fails, the files written so far
// are restored, the children created are deleted and a NetworkManager checkpoint is
// rolled back, so a failed apply leaves the host as it was.
inline constexpr const char* kPreviousDir = "/var/lib/ibsm-agent/previous";
// Seconds NetworkManager waits for the apply to finish before rolling back by itself.
inline constexpr unsigned kCheckpointTimeoutS = 120;

// Runs a plan's actions in order. Nothing runs when the plan has errors or a
// disruptive action on a protected interface lacks --force; pending resources'
// actions are held by the plan and never run here, which does not stop the others; a failing action
// stops the run, and the report says what was done and what was not (the next
// plan shows the rest, because every action is derived from observed state).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agent/fs.hpp"
#include "agent/kernel.hpp"
#include "agent/nm_checkpoint.hpp"
#include "agent/plan.hpp"

namespace ibsm::agent {

struct ApplyReport {
  std::vector<std::string> done;
  std::vector<std::string> not_done;
  std::vector<std::string> refused;      // disruptive actions blocked without --force
  std::vector<std::string> pending;      // "resource: reason"; their actions wait, the rest ran
  std::vector<std::string> skipped;      // "resource: reason"; what the host cannot do
  std::vector<std::string> waiting;      // unattended runs: actions that wait for `apply`
  std::vector<std::string> rolled_back;  // after a failure: what was restored
  std::optional<Error> error;
  bool ok() const { return !error && refused.empty(); }
};

struct ApplyOptions {
  bool force = false;  // allow disruptive actions on protected interfaces
  // Unattended (watch, apply --unattended): run only what is safe without a person. A
  // resource with any action that would take a configured interface down (mode switch,
  // re-activation, ifdown, delete) waits whole for `apply`, so that a written profile is
  // never left unactivated; so does a disruptive action on a protected interface.
  bool unattended = false;
  // NetworkManager: a checkpoint is taken before the first nmcli action and rolled back
  // if an action fails (null: no NetworkManager actions, or a tree).
  Checkpointer* checkpoint = nullptr;
};

ApplyReport apply_plan(const Plan& plan, Fs& fs, Kernel& kernel,
                       const std::map<std::string, std::string>& protected_ifaces, bool force);
ApplyReport apply_plan(const Plan& plan, Fs& fs, Kernel& kernel,
                       const std::map<std::string, std::string>& protected_ifaces,
                       const ApplyOptions& options);

// Whether an action needs a person: disruptive and not marked unattended, or disruptive
// on a protected interface.
bool needs_person(const Action& a, const std::map<std::string, std::string>& protected_ifaces);

// Runs one action.
Status run_action(const Action& a, Fs& fs, Kernel& kernel);

}  // namespace ibsm::agent
