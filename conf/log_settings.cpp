#include "conf/log_settings.hpp"

namespace ibsm::conf {

LogSettings log_settings(const Options& o) {
  LogSettings s;
  s.file = o.log_file;
  s.flags = o.log_flags;
  s.accumulate = o.accum_log_file;
  s.flush_each = o.force_log_flush;
  s.max_bytes = o.log_max_size * 1024 * 1024;
  s.syslog = true;
  s.syslog_prefix = o.log_prefix;
  return s;
}

}  // namespace ibsm::conf
