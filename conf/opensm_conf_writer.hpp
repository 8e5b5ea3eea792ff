// Writes the configuration in opensm.conf form, every key, grouped by section
// with a one-line comment per key. OpenSM 3.3.23 reads the result unchanged.
#pragma once

#include <string>

#include "conf/options.hpp"

namespace ibsm::conf {

std::string write_opensm_conf(const Options& o);

}  // namespace ibsm::conf
