#include "sm/link_settings.hpp"

#include "sm/link_rules.hpp"

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

UntakenLinkFields untaken_link_fields(const mad::PortInfo& sent, const mad::PortInfo& answer) {
  UntakenLinkFields u;
  u.thresholds = answer.local_phy_errors != sent.local_phy_errors ||
                 answer.overrun_errors != sent.overrun_errors;
  u.width_as_supported = sent.link_width_enabled == kWidthAsSupported &&
                         answer.link_width_enabled != answer.link_width_supported;
  u.speed_as_supported = sent.link_speed_enabled == kSpeedAsSupported &&
                         answer.link_speed_enabled != answer.link_speed_supported;
  u.speed_ext_as_supported = sent.link_speed_ext_enabled == kSpeedExtAsSupported &&
                             answer.link_speed_ext_enabled != answer.link_speed_ext_supported;
  u.vl_high_limit = answer.vl_high_limit != sent.vl_high_limit;
  return u;
}

const UntakenLinkFields* UntakenLinks::find(mad::Guid node, mad::PortNum port) const {
  auto it = ports_.find(Key{node, port});
  return it == ports_.end() ? nullptr : &it->second;
}

bool UntakenLinks::note(mad::Guid node, mad::PortNum port, const UntakenLinkFields& fields) {
  if (!fields.any()) return false;
  UntakenLinkFields& held = ports_[Key{node, port}];
  const UntakenLinkFields before = held;
  held.thresholds |= fields.thresholds;
  held.width_as_supported |= fields.width_as_supported;
  held.speed_as_supported |= fields.speed_as_supported;
  held.speed_ext_as_supported |= fields.speed_ext_as_supported;
  held.vl_high_limit |= fields.vl_high_limit;
  return held.vl_high_limit != before.vl_high_limit || held.thresholds != before.thresholds ||
         held.width_as_supported != before.width_as_supported ||
         held.speed_as_supported != before.speed_as_supported ||
         held.speed_ext_as_supported != before.speed_ext_as_supported;
}

}  // namespace ibsm::sm
