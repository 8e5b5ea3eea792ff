#include "agent/apply.hpp"

#include <set>

#include "agent/errors.hpp"

namespace ibsm::agent {

static Status write_file(const Action& a, Fs& fs) {
  if (a.backup) {
    // Keep the first original only: a later apply must not overwrite it with our own edit.
    std::string bak = a.path + ".ibsm-agent-bak";
    if (!fs.exists(bak)) {
      auto original = fs.read(a.path);
      if (!original) return fail(kReadFailed, "cannot read " + a.path + " to back it up");
      if (auto s = fs.write_atomic(bak, *original, fs.mode(a.path).value_or(0644)); !s) return s;
    }
  }
  return fs.write_atomic(a.path, a.content, a.file_mode);
}

Status run_action(const Action& a, Fs& fs, Kernel& kernel) {
  switch (a.kind) {
    case ActionKind::kWriteFile:
      return write_file(a, fs);
    case ActionKind::kRemoveFile:
      return fs.remove(a.path);
    case ActionKind::kWriteAttribute:
      return fs.write_attribute(a.path, a.value);
    case ActionKind::kConfigfsMkdir:
      return kernel.configfs_mkdir(a.path);
    case ActionKind::kCreateChild:
      return kernel.create_ipoib_child(a.parent, a.iface, a.pkey, a.value);
    case ActionKind::kSetMode:
      return kernel.set_ipoib_mode(a.iface, a.value);
    case ActionKind::kSetMtu:
      return kernel.set_mtu(a.iface, std::stoi(a.value));
    case ActionKind::kSetAlias:
      return kernel.set_alias(a.iface, a.value);
    case ActionKind::kAddAddress:
      return kernel.add_address(a.iface, a.value);
    case ActionKind::kLinkUp:
      return kernel.set_up(a.iface);
    case ActionKind::kDeleteLink:
      return kernel.delete_link(a.iface);
    case ActionKind::kAddRdmaLink:
      return kernel.add_rdma_link(a.iface, a.value, a.parent);
    case ActionKind::kLoadModule:
      return kernel.load_module(a.value);
    case ActionKind::kRun:
      return kernel.run(a.argv);
  }
  return fail(kStepFailed, "unknown action");
}

bool needs_person(const Action& a, const std::map<std::string, std::string>& protected_ifaces) {
  if (!a.disruptive) return false;
  return !a.unattended || protected_ifaces.count(a.iface) != 0;
}

ApplyReport apply_plan(const Plan& plan, Fs& fs, Kernel& kernel,
                       const std::map<std::string, std::string>& protected_ifaces, bool force) {
  return apply_plan(plan, fs, kernel, protected_ifaces, ApplyOptions{force, false});
}

ApplyReport apply_plan(const Plan& plan, Fs& fs, Kernel& kernel,
                       const std::map<std::string, std::string>& protected_ifaces,
                       const ApplyOptions& options) {
  const bool force = options.force && !options.unattended;
  ApplyReport report;
  for (const auto& p : plan.pending)
    report.pending.push_back(p.resource + ": " + p.reason);
  auto all_not_done = [&] {
    for (const auto& a : plan.actions)
      report.not_done.push_back(a.describe());
  };
  if (plan.has_errors()) {
    report.error = Error{kStepFailed, "the plan has errors; nothing was applied"};
    all_not_done();
    return report;
  }
  std::set<std::string> held;  // unattended: resources that wait for a person
  if (options.unattended)
    for (const auto& a : plan.actions)
      if (needs_person(a, protected_ifaces)) held.insert(a.resource);
  if (!force) {
    for (const auto& a : plan.actions) {
      if (held.count(a.resource)) continue;
      auto p = protected_ifaces.find(a.iface);
      if (a.disruptive && p != protected_ifaces.end())
        report.refused.push_back(a.describe() + ": " + a.iface + " " + p->second);
    }
    if (!report.refused.empty()) {
      report.error = Error{kDisruptiveRefused,
                           "disruptive change on a protected interface without --force; "
                           "nothing was applied"};
      all_not_done();
      return report;
    }
  }
  for (std::size_t i = 0; i < plan.actions.size(); ++i) {
    const Action& a = plan.actions[i];
    if (held.count(a.resource)) {
      report.waiting.push_back(a.describe() + " (" + a.reason + ")");
      continue;
    }
    if (auto s = run_action(a, fs, kernel); !s) {
      report.error = Error{kStepFailed, a.describe() + " failed: " + to_string(s.error())};
      for (std::size_t j = i; j < plan.actions.size(); ++j)
        report.not_done.push_back(plan.actions[j].describe());
      return report;
    }
    report.done.push_back(a.describe());
  }
  return report;
}

}  // namespace ibsm::agent
