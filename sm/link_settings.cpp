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

}  // namespace ibsm::sm
