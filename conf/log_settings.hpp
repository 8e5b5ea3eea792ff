// The logger settings an Options value asks for.
#pragma once

#include "common/log.hpp"
#include "conf/options.hpp"

namespace ibsm::conf {

// log_file, log_flags, accum_log_file, force_log_flush, log_max_size (MB),
// log_prefix; syslog on.
LogSettings log_settings(const Options& o);

}  // namespace ibsm::conf
