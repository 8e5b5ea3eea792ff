// OpenSM keys ibsm takes but refuses some values of, with a reason (issue 26):
// `console socket` (no authentication on every interface) and the event plugins
// (built against OpenSM's internals). Checked once the files and flags are read.
#pragma once

#include "common/result.hpp"
#include "conf/options.hpp"

namespace ibsm::conf {

Status check_refused_values(const Options& o);

}  // namespace ibsm::conf
