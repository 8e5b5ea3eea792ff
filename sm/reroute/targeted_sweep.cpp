// The targeted sweep (sm/reroute/targeted_sweep.hpp): the SMPs that find what changed
// after a trap or PortStateChange, and the verdict.
#include "sm/reroute/targeted_sweep.hpp"

#include <utility>

#include "mad/attr/node_info.hpp"
#include "mad/attr/port_info.hpp"
#include "sm/errors.hpp"
#include "sm/links/port_config.hpp"
#include "sm/reroute/link_change.hpp"

namespace ibsm::sm::reroute {

using mad::SmpOutcome;
using mad::SmpRequest;

bool may_target(const TargetConditions& c, const Fabric& model) {
  return (c.why == HeavyReason::kTrap || c.why == HeavyReason::kPortStateChange ||
          c.why == HeavyReason::kLightSweepFailed) &&
         !c.full_sweep_trap && c.state == mad::SmState::kMaster && c.first_master_sweep_done &&
         !c.force_heavy_sweep && !c.takeover_pending && model.sm_node != kNoNode &&
         model.size() > 0;
}

TargetedOutcome targeted_sweep(const TargetedInputs& in) {
  const Fabric& model = in.model;
  mad::SmpClient& client = in.client;
  const auto fall_back = [](std::string reason) -> TargetedOutcome {
    return targeted::FallBack{std::move(reason)};
  };

  // 1. Which switches saw a port change (SwitchInfo.PortStateChange, IBA 14.2.5.4), and
  // 2. PortInfo of every port of those. A switch whose directed route crossed the lost
  // link does not answer: once the other end reported the loss, the model routes around
  // it (apply_link_changes) and the switch is asked again, for a few rounds.
  FlaggedSwitches changed;
  std::vector<PortReading> readings;
  std::vector<NodeIndex> pending;
  for (NodeIndex i = 0; i < model.size(); ++i)
    if (model.node(i).is_switch()) pending.push_back(i);
  Fabric work = model;  // the model with what is known to be down so far
  std::string failure;
  ReadingVerdict verdict;
  const auto read_port = [&](NodeIndex i, PortNum p) {
    // With SMSupportsExtendedSpeeds where the switch has them, as discovery reads them.
    client.submit(
        SmpRequest::get<mad::PortInfo>(work.node(i).path, port_info_set_modifier(work, i, p)),
        [&model, &readings, &failure, i, p](const SmpOutcome& o) {
          auto pi = o.ok() ? mad::decode<mad::PortInfo>(o.response->data())
                           : Result<mad::PortInfo>(fail(kErrNodeUnreachable, ""));
          if (!pi.ok()) {
            failure = "a port did not answer PortInfo: " + o.request.describe();
            return;
          }
          readings.push_back({i, p, speeds_checked(model.node(i), p, *pi)});
        });
  };
  for (int round = 0; !pending.empty(); ++round) {
    std::vector<NodeIndex> silent;
    std::vector<NodeIndex> flagged;
    for (NodeIndex i : pending) {
      // First round without retries: a switch behind the lost link cannot answer, and
      // the next round asks it again along a route that avoids the link.
      SmpRequest req = SmpRequest::get<mad::SwitchInfo>(work.node(i).path);
      if (round == 0) req.retries = 0;
      client.submit(req, [&changed, &silent, &flagged, i](const SmpOutcome& o) {
        auto si = o.ok() ? mad::decode<mad::SwitchInfo>(o.response->data())
                         : Result<mad::SwitchInfo>(fail(kErrNodeUnreachable, ""));
        if (!si.ok()) {
          silent.push_back(i);
          return;
        }
        if (si->port_state_change) {
          changed.emplace(i, *si);
          flagged.push_back(i);
        }
      });
    }
    if (!in.drain()) return targeted::Stopped{};
    for (NodeIndex i : flagged)
      for (PortNum p = 1; p <= model.node(i).num_ports(); ++p)
        read_port(i, p);
    if (!in.drain()) return targeted::Stopped{};
    if (!failure.empty()) return fall_back(failure);
    verdict = classify_readings(model, readings);
    if (verdict.fallback) return fall_back(*verdict.fallback);
    if (!verdict.downs.empty()) {
      work = model;
      if (auto cut = apply_link_changes(work, verdict.downs, readings)) return fall_back(*cut);
    }
    if (silent.size() == pending.size() || round == 3)
      return fall_back(std::to_string(silent.size()) + " switches do not answer SwitchInfo");
    pending = std::move(silent);
  }

  // 3. Who is behind the ports that came up.
  std::vector<LinkChange> changes = verdict.downs;
  for (const auto& probe : verdict.probes) {
    // Named copies: clang 14 cannot capture structured bindings in a lambda.
    const auto i = probe.first;
    const auto p = probe.second;
    auto path = work.node(i).path.extended(p);
    if (!path) return fall_back("no directed route behind a port that came up");
    client.submit(SmpRequest::get<mad::NodeInfo>(*path), [&model, &changes, &failure, i,
                                                          p](const SmpOutcome& o) {
      auto ni = o.ok() ? mad::decode<mad::NodeInfo>(o.response->data())
                       : Result<mad::NodeInfo>(fail(kErrNodeUnreachable, ""));
      if (!ni.ok()) {
        failure = "nobody answered behind a port that came up: " + o.request.describe();
        return;
      }
      auto c = classify_probe(model, {i, p, *ni});
      if (auto* why_not = std::get_if<std::string>(&c)) {
        failure = *why_not;
        return;
      }
      const auto& up = std::get<LinkChange>(c);
      // Both ends of a link that came up were probed: one change.
      for (const LinkChange& seen : changes)
        if (seen.kind == up.kind && seen.a == up.b && seen.pa == up.pb) return;
      changes.push_back(up);
    });
  }
  if (!in.drain()) return targeted::Stopped{};
  if (!failure.empty()) return fall_back(failure);
  // The far end of a link that came up, where its switch did not flag the change yet.
  for (const LinkChange& c : changes)
    if (c.kind == LinkChange::Kind::kUp && !changed.contains(c.b)) read_port(c.b, c.pb);
  if (!in.drain()) return targeted::Stopped{};
  if (!failure.empty()) return fall_back(failure);

  if (changes.empty()) {
    // A trap with nothing behind it gets OpenSM's answer to every trap, a full heavy
    // sweep, unless it came while a sweep ran (the other end of a link this SM just
    // handled); a light sweep that lost a switch likewise.
    if (in.why == HeavyReason::kLightSweepFailed ||
        (in.why == HeavyReason::kTrap && !in.trap_while_sweeping))
      return fall_back("no link change found");
    // Nothing the routes depend on: the flags are cleared and the sweep goes on.
    return targeted::NoLinkChange{std::move(changed)};
  }

  targeted::LinkChanges out{std::move(work), std::vector<bool>(model.size(), false), {}};
  Fabric& f = out.fabric;
  for (const auto& [i, si] : changed)
    out.touched[i] = true;
  for (const LinkChange& c : changes)
    out.touched[c.a] = out.touched[c.b] = true;
  // SwitchInfo as read: program_switches clears PortStateChange with its Set.
  for (const auto& [i, si] : changed)
    f.node(i).switch_info = si;
  // `work` has the downs already; applying them again is harmless (links stay removed).
  if (auto cut = apply_link_changes(f, changes, readings)) return fall_back(*cut);
  out.description = describe_changes(model, changes);
  return out;
}

void clear_port_state_change(Fabric& model, mad::SmpClient& client,
                             const FlaggedSwitches& flagged) {
  for (const auto& [i, si] : flagged) {
    // Named copy: clang 14 cannot capture structured bindings in a lambda.
    const NodeIndex node = i;
    client.submit(SmpRequest::set(model.node(node).path, si), [&model, node](const SmpOutcome& o) {
      if (!o.ok()) return;  // still set: the next light sweep comes back here
      if (auto held = mad::decode<mad::SwitchInfo>(o.response->data()); held.ok())
        model.node(node).switch_info = *held;
    });
  }
}

}  // namespace ibsm::sm::reroute
