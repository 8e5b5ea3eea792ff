// The text of `ibsm --help`, generated from the flag list.
#pragma once

#include <string>

namespace ibsm::conf {

std::string usage_text();

// "ibsm <version> (OpenSM 3.3.23 compatible)"
std::string version_text();

}  // namespace ibsm::conf
