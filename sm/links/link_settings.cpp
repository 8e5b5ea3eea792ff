#include "sm/links/link_settings.hpp"

#include "sm/links/link_rules.hpp"

namespace ibsm::sm {

LinkSettings link_settings(const conf::Options& o, const Logger* log) {
  LinkSettings s;
  s.force_link_speed = valid_force_link_speed(o.force_link_speed);
  s.force_link_speed_ext = valid_force_link_speed_ext(o.force_link_speed_ext);
  s.force_link_width = valid_force_link_width(o.force_link_width);
  s.local_phy_errors_threshold = o.local_phy_errors_threshold;
  s.overrun_errors_threshold = o.overrun_errors_threshold;
  if (log != nullptr) {
    auto note = [&](const char* key, unsigned given, unsigned used) {
      if (given != used)
        (*log)->warn("{} {} is a reserved code; using the default {} (as OpenSM)", key, given,
                     used);
    };
    note("force_link_speed", o.force_link_speed, s.force_link_speed);
    note("force_link_speed_ext", o.force_link_speed_ext, s.force_link_speed_ext);
    note("force_link_width", o.force_link_width, s.force_link_width);
  }
  return s;
}

UntakenPortFields untaken_port_fields(const mad::PortInfo& sent, const mad::PortInfo& answer) {
  UntakenPortFields u;
  u.thresholds = answer.local_phy_errors != sent.local_phy_errors ||
                 answer.overrun_errors != sent.overrun_errors;
  u.width_as_supported = sent.link_width_enabled == kWidthAsSupported &&
                         answer.link_width_enabled != answer.link_width_supported;
  u.speed_as_supported = sent.link_speed_enabled == kSpeedAsSupported &&
                         answer.link_speed_enabled != answer.link_speed_supported;
  u.speed_ext_as_supported = sent.link_speed_ext_enabled == kSpeedExtAsSupported &&
                             answer.link_speed_ext_enabled != answer.link_speed_ext_supported;
  u.vl_high_limit = answer.vl_high_limit != sent.vl_high_limit;
  u.subnet_timeout = answer.subnet_timeout != sent.subnet_timeout;
  u.lease_period = answer.m_key_lease_period != sent.m_key_lease_period;
  return u;
}

const UntakenPortFields* UntakenPorts::find(mad::Guid node, mad::PortNum port) const {
  auto it = ports_.find(Key{node, port});
  return it == ports_.end() ? nullptr : &it->second;
}

bool UntakenPorts::note(mad::Guid node, mad::PortNum port, const UntakenPortFields& fields) {
  if (!fields.any()) return false;
  UntakenPortFields& held = ports_[Key{node, port}];
  const UntakenPortFields before = held;
  held.thresholds |= fields.thresholds;
  held.width_as_supported |= fields.width_as_supported;
  held.speed_as_supported |= fields.speed_as_supported;
  held.speed_ext_as_supported |= fields.speed_ext_as_supported;
  held.vl_high_limit |= fields.vl_high_limit;
  held.subnet_timeout |= fields.subnet_timeout;
  held.lease_period |= fields.lease_period;
  return held != before;
}

}  // namespace ibsm::sm
