// docs/configuration.md, generated from the option table and the flag list.
// A unit test fails when the checked-in file differs; regenerate with
//   build/conf/ibsm-gen-config-doc > docs/configuration.md
#pragma once

#include <string>

namespace ibsm::conf {

std::string configuration_markdown();

}  // namespace ibsm::conf
