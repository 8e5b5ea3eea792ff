// What OpenSM does when there is no usable partitions.conf, as functions:
//  - file missing (or empty / only comments, which OpenSM counts as a parse error):
//      Default=0x7fff, ipoib : ALL=full ;   (plus SELF=full; broadcast group rate 3, mtu 4)
//  - file present but without a rule for 0x7fff: the rule below is applied before the
//    file's statements, so the file can override it:
//      Default=0x7fff : ALL=limited, SELF=full ;
// (osm_prtn.c prtn_make_default(), doc/partition-config.txt.)
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "partitions/diagnostic.hpp"
#include "partitions/model.hpp"

namespace ibsm::partitions {

// The configuration OpenSM uses without a file.
Config missing_file_config();

// The implicit first statement of every file that exists.
Statement implicit_default_statement();

struct LoadOutcome {
  std::optional<Config> config;  // nullopt: the file is in error, keep the last good one
  std::vector<Diagnostic> diagnostics;
};

// Text of a file that exists. A file without statements yields missing_file_config()
// and a warning, as OpenSM does.
LoadOutcome load_partitions_text(std::string_view text);

// Reads path. A missing file yields missing_file_config(); an unreadable one an error.
LoadOutcome load_partitions_file(const std::string& path);

}  // namespace ibsm::partitions
