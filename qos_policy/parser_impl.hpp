// The QoS policy reader's state (parser.hpp), shared by the files that read the
// policy: parser.cpp (tokens, values, the file as a whole, errors), parser_groups.cpp
// (port-groups), parser_setup.cpp (qos-setup), parser_levels.cpp (qos-levels,
// qos-match-rules), parser_ulps.cpp (qos-ulps) and parser_resolve.cpp (the references
// between them). Internal to qos_policy/.
#pragma once

#include <bitset>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "qos_policy/errors.hpp"
#include "qos_policy/lexer.hpp"
#include "qos_policy/parser.hpp"

namespace ibsm::qos_policy::detail {

// strtoull as OpenSM reads the policy's numbers, nullopt beyond 64 bits (parser.cpp).
std::optional<std::uint64_t> c_number(std::string_view s);
// The text without its surrounding blanks.
std::string strip(std::string s);

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : t_(std::move(tokens)) {}

  Result<Policy, ParseError> run();

 private:
  const Token& peek() const { return t_[i_]; }
  bool at(Kw kw) const { return peek().kind == Tok::kKeyword && peek().kw == kw; }
  bool at(Tok k) const { return peek().kind == k; }
  const Token& take() {
    const Token& t = t_[i_];
    if (t.kind != Tok::kEnd) ++i_;
    return t;
  }

  // errors (parser.cpp)
  bool error(SourcePos pos, std::string msg, ErrorId id = kPolicySyntax);
  bool unexpected(const std::string& expected);

  // values (parser.cpp)
  bool single_string(std::string& out);
  bool string_list(std::vector<std::string>& out);
  bool number(std::uint64_t& out);
  bool num_list(std::vector<std::uint64_t>& out);
  bool pair_list(std::vector<std::pair<std::uint64_t, std::uint64_t>>& out);
  bool ranges(Ranges& out, bool pkey = false);

  // the file and its sections' ends (parser.cpp)
  bool file();
  bool close(Kw end, const char* what, SourcePos opened);

  // port-groups (parser_groups.cpp)
  bool port_groups();
  bool port_group();
  bool check_port_name(const std::string& s, SourcePos pos);

  // qos-setup (parser_setup.cpp)
  bool qos_setup();
  bool vlarb_scope();
  bool port_set(std::bitset<128>& bits, bool& set, const char* what);
  bool sl2vl_scope();

  // qos-levels and qos-match-rules (parser_levels.cpp)
  bool levels();
  bool level_number(std::optional<std::uint8_t>& into, const Token& key, const char* name,
                    std::uint64_t lo, std::uint64_t hi);
  bool level();
  bool match_rules();
  bool match_rule();

  // qos-ulps (parser_ulps.cpp)
  bool ulp_sl(MatchRule& r);
  std::size_t simple_level(std::uint8_t sl);
  std::size_t ulp_group(const char* name, const Ranges& guids, SourcePos pos);
  bool ulps();

  // references, OpenSM osm_qos_policy_validate (parser_resolve.cpp)
  std::optional<std::size_t> find_level(std::string_view name) const;
  std::optional<std::size_t> find_group(std::string_view name) const;
  bool resolve();

  std::vector<Token> t_;
  std::size_t i_ = 0;
  Policy p_;
  ParseError err_;
  std::vector<MatchRule> ulp_rules_;
  std::vector<Level> simple_;
  std::vector<PortGroup> ulp_groups_;
  std::optional<std::uint8_t> ulp_default_;
  SourcePos ulp_default_pos_;
};

}  // namespace ibsm::qos_policy::detail
