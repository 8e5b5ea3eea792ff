// A non-fatal finding about the configuration (unknown key, unimplemented
// option set, a boolean spelled "true"): logged once at start-up.
#pragma once

#include <string>

#include "common/error.hpp"

namespace ibsm::conf {

struct Warning {
  ErrorId id;
  std::string message;  // names the place (file:line) when there is one
};

}  // namespace ibsm::conf
