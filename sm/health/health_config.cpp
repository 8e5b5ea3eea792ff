#include "sm/health/health_config.hpp"

#include <fmt/format.h>

#include "sm/health/errors.hpp"

namespace ibsm::sm::health {

HealthConfig::HealthConfig() {
  for (auto& row : actions)
    row.fill(Action::kReport);
  set_action(NodeKind::kCa, Condition::kSetErr, Action::kIgnore);
  set_action(NodeKind::kSwitch, Condition::kSetErr, Action::kIgnore);
  set_action(NodeKind::kSwitch, Condition::kManual, Action::kNoDiscover);
}

namespace {

// An action key's value; the option table accepts only the five words.
Action action_of(const std::string& word) {
  return parse_action(word).value_or(Action::kReport);
}

SweepThreshold sweeps(unsigned count, unsigned window, const char* count_key,
                      const char* window_key, std::vector<std::string>& warnings) {
  if (count > window) {
    warnings.push_back(fmt::format(
        "{}: {} {} is more than {} {}; a port is unhealthy when it happens in all {} sweeps",
        format_error_id(kErrHealthKeys), count_key, count, window_key, window, window));
    count = window;
  }
  return {count, window};
}

}  // namespace

HealthConfigResult health_config_from(const conf::Options& o) {
  HealthConfigResult r;
  HealthConfig& c = r.config;
  c.enabled = o.hm_unhealthy_ports_checks;
  c.reboots = {o.hm_num_reboots, std::chrono::seconds(o.hm_reboots_period_secs)};
  c.flapping = sweeps(o.hm_num_flapping_sweeps, o.hm_num_flapping_sweeps_window,
                      "hm_num_flapping_sweeps", "hm_num_flapping_sweeps_window", r.warnings);
  c.unresponsive = sweeps(o.hm_num_no_resp_sweeps, o.hm_num_no_resp_sweeps_window,
                          "hm_num_no_resp_sweeps", "hm_num_no_resp_sweeps_window", r.warnings);
  c.set_errors = sweeps(o.hm_num_set_err_sweeps, o.hm_num_set_err_sweeps_window,
                        "hm_num_set_err_sweeps", "hm_num_set_err_sweeps_window", r.warnings);
  c.traps = {o.hm_num_traps, std::chrono::seconds(o.hm_num_traps_period_secs)};
  c.illegal = o.hm_num_illegal;
  c.error_rate = {o.hm_symbol_errors_per_hour, o.hm_link_error_recovery_per_hour,
                  o.hm_link_downed_per_hour, o.hm_port_rcv_errors_per_hour};
  c.max_isolated = o.hm_max_isolated_ports;

  const auto row = [&](NodeKind k, const std::string& reboot, const std::string& unresponsive,
                       const std::string& noisy, const std::string& seterr,
                       const std::string& flapping, const std::string& illegal,
                       const std::string& manual, const std::string& error_rate) {
    c.set_action(k, Condition::kReboot, action_of(reboot));
    c.set_action(k, Condition::kUnresponsive, action_of(unresponsive));
    c.set_action(k, Condition::kNoisy, action_of(noisy));
    c.set_action(k, Condition::kSetErr, action_of(seterr));
    c.set_action(k, Condition::kFlapping, action_of(flapping));
    c.set_action(k, Condition::kIllegal, action_of(illegal));
    c.set_action(k, Condition::kManual, action_of(manual));
    c.set_action(k, Condition::kErrorRate, action_of(error_rate));
  };
  row(NodeKind::kCa, o.hm_ca_reboot_action, o.hm_ca_unresponsive_action, o.hm_ca_noisy_action,
      o.hm_ca_seterr_action, o.hm_ca_flapping_action, o.hm_ca_illegal_action, o.hm_ca_manual_action,
      o.hm_ca_error_rate_action);
  row(NodeKind::kSwitch, o.hm_sw_reboot_action, o.hm_sw_unresponsive_action, o.hm_sw_noisy_action,
      o.hm_sw_seterr_action, o.hm_sw_flapping_action, o.hm_sw_illegal_action, o.hm_sw_manual_action,
      o.hm_sw_error_rate_action);
  return r;
}

}  // namespace ibsm::sm::health
