#include "sm/health/health_judge.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace ibsm::sm::health {

Outcome HealthJudge::set_policy(HealthPolicy policy) {
  Outcome out;
  for (const auto& [key, d] : unhealthy_) {
    const auto h = policy.find(key.node_guid, d.port.port_guid, key.port);
    if (h == PortHealth::kHealthy ||
        (d.condition == Condition::kManual && h != PortHealth::kUnhealthy))
      out.healthy.push_back(key);
  }
  for (const PortKey& key : out.healthy)
    unhealthy_.erase(key);
  // HEALTHY also forgets what the windows hold: the port starts afresh.
  for (const PolicyEntry& e : policy.entries())
    if (e.health == PortHealth::kHealthy) states_.erase(PortKey{e.guid, e.port});
  policy_ = std::move(policy);
  return out;
}

bool HealthJudge::decide(const PortFacts& port, Condition c, std::string detail, Outcome& out) {
  const Action asked = config_.action(port.kind, c);
  if (asked == Action::kIgnore) return false;
  Decision d{port, c, asked, asked, Downgrade::kNone, std::move(detail), clock_->now()};
  const auto report_instead = [&](Downgrade why) {
    d.action = Action::kReport;
    d.downgrade = why;
  };
  if (asked != Action::kReport && protected_.contains(port.key)) {
    report_instead(Downgrade::kProtected);
  } else if (asked == Action::kIsolate && port.sole_host_link) {
    report_instead(Downgrade::kSoleHostLink);
  } else if (asked == Action::kIsolate && isolated_count() >= config_.max_isolated) {
    report_instead(Downgrade::kIsolationCap);
  }
  states_.erase(port.key);
  unhealthy_[port.key] = d;
  out.unhealthy.push_back(std::move(d));
  return true;
}

bool HealthJudge::judge_port(const PortSweep& s, PortState& st, Outcome& out) {
  st.last_sweep = sweep_;
  const auto now = clock_->now();
  if (s.rebooted) {
    st.last_event = now;
    const unsigned n = st.reboots.record(now, config_.reboots.period, config_.reboots.count);
    if (n >= config_.reboots.count &&
        decide(s.port, Condition::kReboot,
               fmt::format("rebooted {} times within {} s", n, config_.reboots.period.count()),
               out))
      return true;
  }
  const auto sweeps = [&](SweepWindow& w, bool hit, const SweepThreshold& t, Condition c,
                          std::string_view what) {
    const unsigned n = w.record(sweep_, hit, t.window);
    return hit && n >= t.count &&
           decide(s.port, c, fmt::format("{} in {} of the last {} sweeps", what, n, t.window), out);
  };
  if (sweeps(st.unresponsive, s.no_response, config_.unresponsive, Condition::kUnresponsive,
             "did not answer"))
    return true;
  if (sweeps(st.set_errors, s.set_failed, config_.set_errors, Condition::kSetErr, "Sets failed"))
    return true;
  if (sweeps(st.flapping, s.flapped, config_.flapping, Condition::kFlapping, "flapped"))
    return true;
  if (s.illegal > 0) {
    st.illegal += s.illegal;
    if (st.illegal >= config_.illegal &&
        decide(s.port, Condition::kIllegal,
               fmt::format("{} answers with impossible values", st.illegal), out))
      return true;
  }
  return false;
}

Outcome HealthJudge::judge_sweep(const std::vector<PortSweep>& ports) {
  if (!config_.enabled) return {};
  ++sweep_;
  return judge(ports);
}

Outcome HealthJudge::judge_same_sweep(const std::vector<PortSweep>& ports) {
  if (!config_.enabled) return {};
  return judge(ports);
}

Outcome HealthJudge::judge(const std::vector<PortSweep>& ports) {
  Outcome out;
  for (const PortSweep& s : ports) {
    const PortKey& key = s.port.key;
    if (unhealthy_.contains(key)) continue;
    if (policy_.find(key.node_guid, s.port.port_guid, key.port) == PortHealth::kUnhealthy &&
        decide(s.port, Condition::kManual, fmt::format("marked UNHEALTHY in {}", policy_.source()),
               out))
      continue;
    auto it = states_.find(key);
    if (it == states_.end()) {
      // A port with nothing in any window and nothing now needs no state: its windows
      // would only hold clean sweeps.
      if (!s.flapped && !s.no_response && !s.set_failed && !s.rebooted && s.illegal == 0) continue;
      it = states_.emplace(key, PortState{}).first;
    }
    judge_port(s, it->second, out);
  }
  prune();
  return out;
}

Outcome HealthJudge::on_trap(const PortFacts& port) {
  Outcome out;
  if (!config_.enabled || unhealthy_.contains(port.key)) return out;
  const auto now = clock_->now();
  PortState& st = states_[port.key];
  st.last_event = now;
  const unsigned n = st.traps.record(now, config_.traps.period, config_.traps.count);
  if (n >= config_.traps.count)
    decide(port, Condition::kNoisy,
           fmt::format("{} port-error traps within {} s", n, config_.traps.period.count()), out);
  return out;
}

Outcome HealthJudge::on_counters(const PortFacts& port, const CounterDeltas& d) {
  Outcome out;
  if (!config_.enabled || unhealthy_.contains(port.key)) return out;
  const bool any = d.symbol_errors != 0 || d.link_error_recovery != 0 || d.link_downed != 0 ||
                   d.port_rcv_errors != 0;
  // Most ports count no errors: they cost no state (PerfMgr reports every port).
  if (!any && !states_.contains(port.key)) return out;
  const auto now = clock_->now();
  PortState& st = states_[port.key];
  if (any) st.last_event = now;
  const ErrorRateThresholds& t = config_.error_rate;
  const auto rate = [&](CountWindow& w, std::uint64_t delta, std::uint64_t threshold,
                        std::string_view counter) {
    const std::uint64_t n = w.record(now, delta, d.elapsed);
    return threshold != 0 && delta != 0 && n >= threshold &&
           decide(port, Condition::kErrorRate,
                  fmt::format("{} rose by {} within an hour (threshold {})", counter, n, threshold),
                  out);
  };
  // Once decided, the port's state is gone: stop at the first counter past its threshold.
  rate(st.symbol_errors, d.symbol_errors, t.symbol_errors, "SymbolErrorCounter") ||
      rate(st.link_error_recovery, d.link_error_recovery, t.link_error_recovery,
           "LinkErrorRecoveryCounter") ||
      rate(st.link_downed, d.link_downed, t.link_downed, "LinkDownedCounter") ||
      rate(st.port_rcv_errors, d.port_rcv_errors, t.port_rcv_errors, "PortRcvErrors");
  return out;
}

bool HealthJudge::clear(const PortKey& key) {
  states_.erase(key);
  return unhealthy_.erase(key) > 0;
}

std::vector<Decision> HealthJudge::unhealthy_ports() const {
  std::vector<Decision> out;
  out.reserve(unhealthy_.size());
  for (const auto& [key, d] : unhealthy_)
    out.push_back(d);
  return out;
}

std::size_t HealthJudge::isolated_count() const {
  return static_cast<std::size_t>(
      std::count_if(unhealthy_.begin(), unhealthy_.end(),
                    [](const auto& kv) { return kv.second.action == Action::kIsolate; }));
}

void HealthJudge::prune() {
  const auto now = clock_->now();
  const Clock::Duration keep =
      std::max({Clock::Duration(config_.reboots.period), Clock::Duration(config_.traps.period),
                Clock::Duration(CountWindow::kSpan)});
  std::erase_if(states_, [&](const auto& kv) {
    const PortState& st = kv.second;
    return sweep_ - st.last_sweep > 31 && (!st.last_event || now - *st.last_event > keep) &&
           st.illegal == 0;
  });
}

}  // namespace ibsm::sm::health
