// Loads one configuration file into Options: ibsm.toml if the name ends in
// ".toml", otherwise opensm.conf syntax.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "conf/diagnostic.hpp"
#include "conf/options.hpp"

namespace ibsm::conf {

bool is_toml_path(const std::string& path);

Result<std::vector<Warning>> load_config_file(const std::string& path, Options& o, bool strict);

// One warning naming every option that ibsm does not implement but that is set
// to something other than OpenSM's default; nullopt if there is none.
std::optional<Warning> unimplemented_options_warning(const Options& o);

}  // namespace ibsm::conf
