// Reads ibsm.toml: the same options as opensm.conf, under one table per
// section ([device], [routing], ... see conf/option_spec.hpp). Unknown tables
// and keys, and keys in the wrong table, are errors. Integers may be TOML
// integers or strings in opensm.conf syntax ("0xfe80000000000000", needed for
// 64-bit values above the TOML integer range); an empty string unsets a string.
#pragma once

#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "conf/diagnostic.hpp"
#include "conf/options.hpp"

namespace ibsm::conf {

// Applies a TOML document to `o`. Errors name origin:line:column and the key.
Result<std::vector<Warning>> apply_toml(std::string_view text, std::string_view origin, Options& o);

}  // namespace ibsm::conf
