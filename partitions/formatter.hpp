// Writing partitions.conf text.
//  - format_file: the canonical layout of an existing file (ibsm-part fmt). Keeps
//    every comment, blank line and the line each item is on; normalises blanks
//    (", " between items, no blanks around '=', 8-space indent for continuation
//    lines) and spells out abbreviated keywords (A -> ALL, limi -> limited,
//    s=2 -> scope=2). Formatting a formatted file changes nothing.
//  - statement_text / config_text: text written from a model (ibsm-part add, tests),
//    always in OpenSM-compatible enums.
#pragma once

#include <string>

#include "common/text.hpp"
#include "partitions/model.hpp"
#include "partitions/syntax.hpp"

namespace ibsm::partitions {

inline constexpr const char* kContinuationIndent = "        ";

// Precondition: the tree has no syntax errors (ibsm-part refuses to format those).
std::string format_file(const SyntaxTree& tree);

std::string statement_text(const Statement& st);
std::string config_text(const Config& config);

// Pieces shared with the editor.
std::string canonical_field(const SyntaxTree& tree, const Field& f, bool member);
std::string member_text(const Member& m);
std::string hex_pkey(std::uint16_t pkey);  // "0x7fff"

}  // namespace ibsm::partitions
