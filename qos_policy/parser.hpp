// The QoS policy file reader: OpenSM 3.3.23's grammar (osm_qos_parser_y.y), by hand,
// recursive descent over lexer.hpp's tokens. The whole file is read or nothing: the
// first error stops it and names file:line:column. After the grammar, the references
// are resolved as OpenSM's osm_qos_policy_validate does (a DEFAULT level, the levels
// and port groups the match rules name) and the qos-ulps lines become match rules
// placed after those of qos-match-rules.
#pragma once

#include <string>
#include <string_view>

#include "common/error.hpp"
#include "common/result.hpp"
#include "qos_policy/model.hpp"

namespace ibsm::qos_policy {

struct ParseError {
  ErrorId id;
  SourcePos pos;  // line 0: the file as a whole (cannot be read)
  std::string message;
};

Result<Policy, ParseError> parse_policy(std::string_view text);

// Reads and parses a file.
Result<Policy, ParseError> load_policy_file(const std::string& path);

// "IBSM-2501: /etc/opensm/qos-policy.conf:12:5: <message>"
std::string format_error(const ParseError& e, std::string_view file);

}  // namespace ibsm::qos_policy
