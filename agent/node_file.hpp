// Reads a node file (TOML) into a NodeConfig. Every error names file:line:column
// and the dotted key; unknown keys are errors so a typo never silently drops a setting.
#pragma once

#include <string>
#include <string_view>

#include "agent/node_config.hpp"
#include "common/result.hpp"

namespace ibsm::agent {

// `path` is used in messages only; `text` is the file's content.
Result<NodeConfig> parse_node_file(std::string_view text, const std::string& path);

// Reads and parses the file at `path` (a host path, not root-relative: the node
// file describes the tree, it is not part of it).
Result<NodeConfig> load_node_file(const std::string& path);

}  // namespace ibsm::agent
