// Concrete syntax tree of a partitions.conf file: every statement, flag, member
// and mgid line with the byte span it occupies in the original text. The semantic
// parser reads it; ibsm-part edits the text through these spans, so whatever an
// edit does not touch (comments, layout, order) stays byte for byte.
//
// The split follows OpenSM's reader (osm_prtn_config.c): '#' starts a comment up to
// the end of the line; ';' ends a statement; the definition 'Name[=PKey][,flag]*'
// and its ':' must be on one line; members and mgid lines may follow on the same
// and later lines; an mgid item takes every remaining item up to the end of the
// line (or the ';') as its flags. See docs/partitions-grammar.md.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "partitions/diagnostic.hpp"

namespace ibsm::partitions {

struct Span {
  std::size_t begin = 0;
  std::size_t end = 0;  // one past the last byte
  bool empty() const { return begin == end; }
  std::size_t size() const { return end - begin; }
};

// One comma-separated item: "key[=value]" with surrounding blanks.
struct Field {
  Span raw;   // between the separators, blanks included
  Span text;  // trimmed item
  Span key;   // trimmed text before the first '='
  bool has_value = false;
  Span value;                // trimmed text after the first '='
  bool comma_after = false;  // a ',' follows the item
};

struct MgidSyntax {
  Field mgid;                // "mgid=<gid>"
  std::vector<Field> flags;  // the rest of the line (or up to ';')
};

struct BodyItem {
  enum class Kind { kMember, kMgid } kind = Kind::kMember;
  Field member;       // kMember
  MgidSyntax mgid;    // kMgid
  Span span() const;  // trimmed extent of the item (mgid: up to its last flag)
};

struct StatementSyntax {
  Span span;         // first byte of the definition .. ';' inclusive (or last item)
  Field definition;  // Name[=PKey]
  std::vector<Field> flags;
  std::size_t colon = 0;
  std::vector<BodyItem> body;  // blank items are not listed
  std::optional<std::size_t> semicolon;
};

struct SyntaxTree {
  std::string text;
  std::vector<StatementSyntax> statements;
  std::vector<Diagnostic> diagnostics;  // syntax errors and warnings, in file order
  std::vector<std::size_t> line_starts;

  std::string_view slice(Span s) const { return std::string_view(text).substr(s.begin, s.size()); }
  // 1-based line and byte column of an offset.
  std::pair<int, int> position(std::size_t offset) const;
  // Offset of the start of the line that holds offset, and one past its end ('\n' excluded).
  Span line_of(std::size_t offset) const;
};

// Never fails and never throws: problems end up in diagnostics; after an error the
// reader skips to the next ';' and goes on, so one run reports every error.
SyntaxTree parse_syntax(std::string text);

// OpenSM reads lines with fgets into a 4096-byte buffer: longer lines get cut.
inline constexpr std::size_t kOpenSmMaxLine = 4094;

}  // namespace ibsm::partitions
