// The targeted sweep: a trap or PortStateChange on a subnet this SM already brought up.
// Instead of rediscovering the whole subnet (a heavy sweep reads every node and port:
// hundreds of thousands of SMPs on a 5,000-host fabric), it reads SwitchInfo of every
// switch, PortInfo of the switches that flagged PortStateChange, and NodeInfo behind
// ports that came up; when that shows only inter-switch links lost or back between
// known switches, the last fabric model is updated (sm/reroute/link_change.hpp) and the
// heavy sweep goes on from LID assignment with it (routing, only the LFT blocks that
// differ, PortInfo for the ports that changed, SUBNET UP). Anything else falls back to
// the full heavy sweep.
#include <unordered_map>
#include <utility>

#include "mad/attr/node_info.hpp"
#include "mad/attr/port_info.hpp"
#include "mad/attr/switch_info.hpp"
#include "sm/links/port_config.hpp"
#include "sm/reroute/link_change.hpp"
#include "sm/subnet_manager.hpp"

namespace ibsm::sm {

using mad::SmpOutcome;
using mad::SmpRequest;

bool SubnetManager::may_target() const {
  // A light sweep fails when a switch's directed route crosses a lost link: the
  // targeted sweep finds the link and asks that switch again along another route.
  return (loop_.heavy_reason == HeavyReason::kTrap ||
          loop_.heavy_reason == HeavyReason::kPortStateChange ||
          loop_.heavy_reason == HeavyReason::kLightSweepFailed) &&
         !loop_.full_sweep_trap && state() == mad::SmState::kMaster && first_master_sweep_done_ &&
         !options_.force_heavy_sweep && !tables_.takeover_pending() && fabric_.sm_node != kNoNode &&
         fabric_.size() > 0;
}

std::optional<SweepResult> SubnetManager::targeted_sweep(const std::atomic<bool>& stop) {
  const auto t0 = clock_.now();
  const auto before = client_.counters();
  const HeavyReason why = loop_.heavy_reason;
  const bool late_trap = std::exchange(loop_.trap_while_sweeping, false);
  // Traps arriving from here on ask for another sweep.
  loop_.heavy_reason = HeavyReason::kNone;
  set_phase(SweepPhase::kTargetedSweep);
  log_->info("INITIATING TARGETED SWEEP ({})", heavy_reason_name(why));
  const auto fall_back = [&](const std::string& reason) -> std::optional<SweepResult> {
    log_->info("targeted sweep: {}; full heavy sweep", reason);
    if (loop_.heavy_reason == HeavyReason::kNone) loop_.heavy_reason = why;
    set_phase(SweepPhase::kIdle);
    return std::nullopt;
  };

  // 1. Which switches saw a port change (SwitchInfo.PortStateChange, IBA 14.2.5.4), and
  // 2. PortInfo of every port of those. A switch whose directed route crossed the lost
  // link does not answer: once the other end reported the loss, the model routes around
  // it (apply_link_changes) and the switch is asked again, for a few rounds.
  std::unordered_map<NodeIndex, mad::SwitchInfo> changed;
  std::vector<reroute::PortReading> readings;
  std::vector<NodeIndex> pending;
  for (NodeIndex i = 0; i < fabric_.size(); ++i)
    if (fabric_.node(i).is_switch()) pending.push_back(i);
  Fabric work = fabric_;  // the model with what is known to be down so far
  std::string failure;
  reroute::ReadingVerdict verdict;
  const auto read_port = [&](NodeIndex i, PortNum p) {
    // With SMSupportsExtendedSpeeds where the switch has them, as discovery reads them.
    client_.submit(
        SmpRequest::get<mad::PortInfo>(work.node(i).path, port_info_set_modifier(work, i, p)),
        [this, &readings, &failure, i, p](const SmpOutcome& o) {
          auto pi = o.ok() ? mad::decode<mad::PortInfo>(o.response->data())
                           : Result<mad::PortInfo>(fail(kErrNodeUnreachable, ""));
          if (!pi.ok()) {
            failure = "a port did not answer PortInfo: " + o.request.describe();
            return;
          }
          readings.push_back({i, p, speeds_checked(fabric_.node(i), p, *pi)});
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
      client_.submit(req, [&changed, &silent, &flagged, i](const SmpOutcome& o) {
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
    drain(stop);
    if (stop.load()) return SweepResult{};
    for (NodeIndex i : flagged)
      for (PortNum p = 1; p <= fabric_.node(i).num_ports(); ++p)
        read_port(i, p);
    drain(stop);
    if (stop.load()) return SweepResult{};
    if (!failure.empty()) return fall_back(failure);
    verdict = reroute::classify_readings(fabric_, readings);
    if (verdict.fallback) return fall_back(*verdict.fallback);
    if (!verdict.downs.empty()) {
      work = fabric_;
      if (auto cut = reroute::apply_link_changes(work, verdict.downs, readings))
        return fall_back(*cut);
    }
    if (silent.size() == pending.size() || round == 3)
      return fall_back(std::to_string(silent.size()) + " switches do not answer SwitchInfo");
    pending = std::move(silent);
  }

  // 3. Who is behind the ports that came up.
  std::vector<reroute::LinkChange> changes = verdict.downs;
  for (const auto& probe : verdict.probes) {
    // Named copies: clang 14 cannot capture structured bindings in a lambda.
    const auto i = probe.first;
    const auto p = probe.second;
    auto path = work.node(i).path.extended(p);
    if (!path) return fall_back("no directed route behind a port that came up");
    client_.submit(SmpRequest::get<mad::NodeInfo>(*path), [this, &changes, &failure, i,
                                                           p](const SmpOutcome& o) {
      auto ni = o.ok() ? mad::decode<mad::NodeInfo>(o.response->data())
                       : Result<mad::NodeInfo>(fail(kErrNodeUnreachable, ""));
      if (!ni.ok()) {
        failure = "nobody answered behind a port that came up: " + o.request.describe();
        return;
      }
      auto c = reroute::classify_probe(fabric_, {i, p, *ni});
      if (auto* why_not = std::get_if<std::string>(&c)) {
        failure = *why_not;
        return;
      }
      const auto& up = std::get<reroute::LinkChange>(c);
      // Both ends of a link that came up were probed: one change.
      for (const reroute::LinkChange& seen : changes)
        if (seen.kind == up.kind && seen.a == up.b && seen.pa == up.pb) return;
      changes.push_back(up);
    });
  }
  drain(stop);
  if (stop.load()) return SweepResult{};
  if (!failure.empty()) return fall_back(failure);
  // The far end of a link that came up, where its switch did not flag the change yet.
  for (const reroute::LinkChange& c : changes)
    if (c.kind == reroute::LinkChange::Kind::kUp && !changed.contains(c.b)) read_port(c.b, c.pb);
  drain(stop);
  if (stop.load()) return SweepResult{};
  if (!failure.empty()) return fall_back(failure);

  if (changes.empty()) {
    // A trap with nothing behind it gets OpenSM's answer to every trap, a full heavy
    // sweep, unless it came while a sweep ran (the other end of a link this SM just
    // handled); a light sweep that lost a switch likewise.
    if (why == HeavyReason::kLightSweepFailed || (why == HeavyReason::kTrap && !late_trap))
      return fall_back("no link change found");
    // Nothing the routes depend on: clear the flags (write 1, IBA 14.2.5.4) and go on.
    for (const auto& [i, si] : changed) {
      client_.submit(SmpRequest::set(fabric_.node(i).path, si), [this, i](const SmpOutcome& o) {
        if (!o.ok()) return;  // still set: the next light sweep comes back here
        if (auto held = mad::decode<mad::SwitchInfo>(o.response->data()); held.ok())
          fabric_.node(i).switch_info = *held;
      });
    }
    drain(stop);
    set_phase(SweepPhase::kIdle);
    log_->info("targeted sweep: no link change ({} switches flagged a port change)",
               changed.size());
    SweepResult r;
    r.subnet_up = true;
    r.seconds = std::chrono::duration<double>(clock_.now() - t0).count();
    return r;
  }

  PreparedFabric prepared{std::move(work), t0, before, std::vector<bool>(fabric_.size(), false)};
  Fabric& f = prepared.fabric;
  for (const auto& [i, si] : changed)
    prepared.touched[i] = true;
  for (const reroute::LinkChange& c : changes)
    prepared.touched[c.a] = prepared.touched[c.b] = true;
  // SwitchInfo as read: program_switches clears PortStateChange with its Set.
  for (const auto& [i, si] : changed)
    f.node(i).switch_info = si;
  // `work` has the downs already; applying them again is harmless (links stay removed).
  if (auto cut = reroute::apply_link_changes(f, changes, readings)) return fall_back(*cut);
  log_->info("targeted sweep: {}", reroute::describe_changes(fabric_, changes));
  return heavy_sweep(stop, &prepared);
}

}  // namespace ibsm::sm
