// Writes the configuration as ibsm.toml (every option, one table per
// section); `ibsm --convert opensm.conf` prints this.
#pragma once

#include <string>

#include "conf/options.hpp"

namespace ibsm::conf {

std::string write_toml(const Options& o);

}  // namespace ibsm::conf
