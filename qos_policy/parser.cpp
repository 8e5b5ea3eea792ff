// QoS policy grammar (parser.hpp): the file as a whole, its tokens and values, and
// its errors. Each section function (parser_impl.hpp says which file holds which)
// reads its keyword's entries until the closing keyword; each entry reads one value
// of the form its key takes (lexer.hpp sets the token modes that make the forms
// unambiguous).
#include "qos_policy/parser.hpp"

#include <algorithm>
#include <cctype>
#include <limits>

#include "common/atomic_file.hpp"
#include "common/c_number.hpp"
#include "qos_policy/errors.hpp"
#include "qos_policy/lexer.hpp"
#include "qos_policy/parser_impl.hpp"

namespace ibsm::qos_policy {

void normalize(Ranges& r) {
  std::sort(r.begin(), r.end(), [](const Range& a, const Range& b) {
    return a.lo != b.lo ? a.lo < b.lo : a.hi < b.hi;
  });
  Ranges out;
  for (const Range& x : r) {
    if (!out.empty() &&
        (x.lo <= out.back().hi || (out.back().hi != std::numeric_limits<std::uint64_t>::max() &&
                                   x.lo == out.back().hi + 1))) {
      out.back().hi = std::max(out.back().hi, x.hi);
    } else {
      out.push_back(x);
    }
  }
  r = std::move(out);
}

bool contains(const Ranges& r, std::uint64_t v) {
  auto it = std::upper_bound(r.begin(), r.end(), v,
                             [](std::uint64_t x, const Range& e) { return x < e.lo; });
  return it != r.begin() && v <= std::prev(it)->hi;
}

namespace {

std::string describe(const Token& t) {
  switch (t.kind) {
    case Tok::kEnd:
      return "end of file";
    case Tok::kKeyword:
      return "'" + detail::strip(t.text) + "'";
    case Tok::kNumber:
      return "number " + t.text;
    case Tok::kText:
      return "'" + t.text + "'";
    case Tok::kDash:
      return "'-'";
    case Tok::kColon:
      return "':'";
    case Tok::kComma:
      return "','";
    case Tok::kAsterisk:
      return "'*'";
  }
  return "?";
}

}  // namespace

namespace detail {

std::string strip(std::string s) {
  auto blank = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!s.empty() && blank(s.back()))
    s.pop_back();
  std::size_t b = 0;
  while (b < s.size() && blank(s[b]))
    ++b;
  return s.substr(b);
}

// strtoull(s, NULL, 0) as OpenSM reads the policy's numbers, without its silent
// saturation: the leading number (common/c_number.hpp; 0 when there is none, as
// strtoull), nullopt beyond 64 bits.
std::optional<std::uint64_t> c_number(std::string_view s) {
  const auto n = scan_c_number(s);
  if (n) return n->magnitude;
  if (n.error().fault == CNumberFault::kOverflow) return std::nullopt;
  return 0;
}

Result<Policy, ParseError> Parser::run() {
  if (!file()) return fail(err_);
  if (!resolve()) return fail(err_);
  return std::move(p_);
}

bool Parser::error(SourcePos pos, std::string msg, ErrorId id) {
  err_ = ParseError{id, pos, std::move(msg)};
  return false;
}

bool Parser::unexpected(const std::string& expected) {
  std::string what = describe(peek());
  if (peek().kind == Tok::kText) {  // the scanner cuts words into letters: show the word
    std::string word;
    for (std::size_t k = i_; k < t_.size() && t_[k].kind == Tok::kText &&
                             t_[k].pos.line == peek().pos.line && word.size() < 40;
         ++k) {
      if (k > i_ && t_[k].pos.column != t_[k - 1].pos.column + t_[k - 1].text.size()) break;
      word += t_[k].text;
    }
    what = "'" + word + "'";
  }
  return error(peek().pos, "unexpected " + what + ", expected " + expected);
}

bool Parser::single_string(std::string& out) {
  if (!at(Tok::kText)) return unexpected("a name or text");
  std::string s;
  while (at(Tok::kText))
    s += take().text;
  out = strip(std::move(s));
  return true;
}

bool Parser::string_list(std::vector<std::string>& out) {
  do {
    std::string s;
    if (!single_string(s)) return false;
    out.push_back(std::move(s));
  } while (at(Tok::kComma) && (take(), true));
  return true;
}

bool Parser::number(std::uint64_t& out) {
  if (!at(Tok::kNumber)) return unexpected("a number");
  const Token& t = take();
  auto v = c_number(t.text);
  if (!v) return error(t.pos, "number " + t.text + " is too large");
  out = *v;
  return true;
}

bool Parser::num_list(std::vector<std::uint64_t>& out) {
  do {
    std::uint64_t v = 0;
    if (!number(v)) return false;
    out.push_back(v);
  } while (at(Tok::kComma) && (take(), true));
  return true;
}

bool Parser::pair_list(std::vector<std::pair<std::uint64_t, std::uint64_t>>& out) {
  do {
    std::uint64_t a = 0, b = 0;
    if (!number(a)) return false;
    if (!at(Tok::kColon)) return unexpected("':' between VL and weight");
    take();
    if (!number(b)) return false;
    out.emplace_back(a, b);
  } while (at(Tok::kComma) && (take(), true));
  return true;
}

// N or N-M items, comma-separated; a reversed range is turned around (OpenSM).
bool Parser::ranges(Ranges& out, bool pkey) {
  Ranges r;
  do {
    std::uint64_t a = 0, b = 0;
    if (!number(a)) return false;
    b = a;
    if (at(Tok::kDash)) {
      take();
      if (!number(b)) return false;
    }
    if (pkey) {
      a &= 0x7fff;
      b &= 0x7fff;
    }
    if (a > b) std::swap(a, b);
    r.push_back({a, b});
  } while (at(Tok::kComma) && (take(), true));
  out.insert(out.end(), r.begin(), r.end());
  normalize(out);
  return true;
}

bool Parser::file() {
  while (!at(Tok::kEnd)) {
    if (at(Kw::kQosUlps)) {
      if (!ulps()) return false;
    } else if (at(Kw::kPortGroups)) {
      if (!port_groups()) return false;
    } else if (at(Kw::kQosSetup)) {
      if (!qos_setup()) return false;
    } else if (at(Kw::kQosLevels)) {
      if (!levels()) return false;
    } else if (at(Kw::kQosMatchRules)) {
      if (!match_rules()) return false;
    } else {
      return unexpected(
          "a section: port-groups, qos-setup, qos-levels, qos-match-rules or qos-ulps");
    }
  }
  return true;
}

// The closing keyword of a section or item, or the error naming where it opened.
bool Parser::close(Kw end, const char* what, SourcePos opened) {
  if (at(end)) {
    take();
    return true;
  }
  if (at(Tok::kEnd))
    return error(peek().pos, std::string(what) + " opened at line " + std::to_string(opened.line) +
                                 " is not closed with '" + keyword_spelling(end) + "'");
  return unexpected("'" + keyword_spelling(end) + "' or an entry of " + what);
}

}  // namespace detail

Result<Policy, ParseError> parse_policy(std::string_view text) {
  return detail::Parser(tokenize(text)).run();
}

Result<Policy, ParseError> load_policy_file(const std::string& path) {
  auto text = read_file(path);
  if (!text) return fail(ParseError{kPolicyUnreadable, {}, text.error().message});
  return parse_policy(*text);
}

std::string format_error(const ParseError& e, std::string_view file) {
  std::string where(file);
  if (e.pos.line != 0)
    where += ":" + std::to_string(e.pos.line) + ":" + std::to_string(e.pos.column);
  return format_error_id(e.id) + ": " + where + ": " + e.message;
}

}  // namespace ibsm::qos_policy
