#include "agent/apply.hpp"
#include "agent/input_grammar.hpp"

#include <algorithm>
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
    case ActionKind::kSetMtu: {
      auto mtu = parse_uint(a.value, 65535);
      if (!mtu) return fail(kStepFailed, "set mtu " + a.iface + ": bad value \"" + a.value + "\"");
      return kernel.set_mtu(a.iface, static_cast<int>(*mtu));
    }
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

namespace {

// What a rollback undoes: a file written or removed (with its previous version, if it
// had one), or a P_Key child created.
struct Undo {
  bool child = false;
  std::string target;  // path, or interface
  std::optional<std::string> previous;
  unsigned mode = 0644;
  std::vector<std::vector<std::string>> commands;  // a kRun's undo commands
};

// Keeps the current version of the file `a` is about to write or remove, in memory for
// a rollback and under kPreviousDir for the operator.
Status remember(const Action& a, Fs& fs, std::vector<Undo>& undo) {
  Undo u{false, a.path, fs.read(a.path), fs.mode(a.path).value_or(a.file_mode), {}};
  if (u.previous)
    if (auto s = fs.write_atomic(std::string(kPreviousDir) + a.path, *u.previous, 0600); !s)
      return s;
  undo.push_back(std::move(u));
  return {};
}

std::vector<std::string> roll_back(const std::vector<Undo>& undo, Fs& fs, Kernel& kernel) {
  std::vector<std::string> out;
  auto said = [](const Status& s) {
    return s ? std::string() : " FAILED: " + to_string(s.error());
  };
  for (auto it = undo.rbegin(); it != undo.rend(); ++it) {
    if (!it->commands.empty()) {
      for (const auto& argv : it->commands) {
        std::string cmd;
        for (const auto& a : argv)
          cmd += (cmd.empty() ? "" : " ") + a;
        out.push_back("ran " + cmd + said(kernel.run(argv)));
      }
      continue;
    }
    if (it->child)
      out.push_back("deleted " + it->target + said(kernel.delete_link(it->target)));
    else if (it->previous)
      out.push_back("restored " + it->target +
                    said(fs.write_atomic(it->target, *it->previous, it->mode)));
    else
      out.push_back("removed " + it->target + said(fs.remove(it->target)));
  }
  return out;
}

constexpr const char* kNmKeyfileDir = "/etc/NetworkManager/system-connections/";

bool networkmanager_action(const Action& a) {
  return a.kind == ActionKind::kRun && !a.argv.empty() && a.argv[0] == "nmcli";
}

}  // namespace

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
  for (const auto& p : plan.skipped)
    report.skipped.push_back(p.resource + ": " + p.reason);
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
  // NetworkManager: one checkpoint before anything changes; NetworkManager rolls back by
  // itself if this run never destroys it (killed, or its connection lost).
  std::optional<std::string> checkpoint;
  if (options.checkpoint &&
      std::any_of(plan.actions.begin(), plan.actions.end(), networkmanager_action)) {
    auto c = options.checkpoint->create(kCheckpointTimeoutS);
    if (!c) {
      report.error = c.error();
      all_not_done();
      return report;
    }
    checkpoint = *c;
  }
  std::vector<Undo> undo;
  for (std::size_t i = 0; i < plan.actions.size(); ++i) {
    const Action& a = plan.actions[i];
    if (held.count(a.resource)) {
      report.waiting.push_back(a.describe() + " (" + a.reason + ")");
      continue;
    }
    Status s;
    if (a.kind == ActionKind::kWriteFile || a.kind == ActionKind::kRemoveFile)
      s = remember(a, fs, undo);
    if (s) s = run_action(a, fs, kernel);
    if (!s) {
      std::string failure = a.describe() + " failed: " + to_string(s.error());
      for (std::size_t j = i; j < plan.actions.size(); ++j)
        report.not_done.push_back(plan.actions[j].describe());
      if (checkpoint) {
        auto r = options.checkpoint->rollback(*checkpoint);
        report.rolled_back.push_back("NetworkManager checkpoint " + *checkpoint + " rolled back" +
                                     (r ? "" : " FAILED: " + to_string(r.error())));
      }
      auto files = roll_back(undo, fs, kernel);
      report.rolled_back.insert(report.rolled_back.end(), files.begin(), files.end());
      // A checkpoint restores the profiles of the devices it holds, not an inactive
      // profile loaded from a keyfile this apply rewrote: NetworkManager keeps the new
      // version in memory until it reads the restored file again.
      if (checkpoint)
        for (const auto& u : undo)
          if (!u.child && u.commands.empty() && u.previous &&
              u.target.rfind(kNmKeyfileDir, 0) == 0) {
            auto l = kernel.run({"nmcli", "connection", "load", u.target});
            report.rolled_back.push_back("reloaded " + u.target + " into NetworkManager" +
                                         (l ? "" : " FAILED: " + to_string(l.error())));
          }
      if (report.rolled_back.empty()) {
        report.error = Error{kStepFailed, failure};
      } else {
        report.error =
            Error{kRolledBack, failure + "; rolled back what this apply had changed (" +
                                   std::to_string(report.rolled_back.size()) + " step(s))"};
      }
      return report;
    }
    if (a.kind == ActionKind::kCreateChild) undo.push_back(Undo{true, a.iface, {}, 0, {}});
    if (a.kind == ActionKind::kRun && !a.undo.empty())
      undo.push_back(Undo{false, "", {}, 0, a.undo});
    report.done.push_back(a.describe());
  }
  if (checkpoint)
    if (auto d = options.checkpoint->destroy(*checkpoint); !d)
      report.error = Error{kCheckpointFailed,
                           "applied, but the checkpoint could not be destroyed "
                           "(NetworkManager will roll back at its timeout): " +
                               to_string(d.error())};
  return report;
}

}  // namespace ibsm::agent
