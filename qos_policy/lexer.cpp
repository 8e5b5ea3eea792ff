// The QoS policy scanner (see lexer.hpp for the rules it follows).
#include "qos_policy/lexer.hpp"

#include <array>
#include <cctype>

namespace ibsm::qos_policy {

namespace {

enum class Mode : std::uint8_t { kNone, kDescription, kNames, kNodeType };

enum class Shape : std::uint8_t {
  kBare,      // the word alone: section keywords, node types
  kColon,     // word [ \t]*:[ \t]*
  kUlpComma,  // word [ \t]*,[ \t]* second   (word case-insensitive)
};

struct KeywordRule {
  std::string_view word;
  Kw kw;
  Shape shape;
  Mode sets = Mode::kNone;
  std::string_view second = {};
  bool any_case = false;
};

// In the scanner's rule order (ties of equal length go to the earlier rule).
constexpr std::array<KeywordRule, 71> kRules = {{
    {"qos-ulps", Kw::kQosUlps, Shape::kBare},
    {"end-qos-ulps", Kw::kEndQosUlps, Shape::kBare},
    {"port-groups", Kw::kPortGroups, Shape::kBare},
    {"end-port-groups", Kw::kEndPortGroups, Shape::kBare},
    {"port-group", Kw::kPortGroup, Shape::kBare},
    {"end-port-group", Kw::kEndPortGroup, Shape::kBare},
    {"qos-setup", Kw::kQosSetup, Shape::kBare},
    {"end-qos-setup", Kw::kEndQosSetup, Shape::kBare},
    {"vlarb-tables", Kw::kVlarbTables, Shape::kBare},
    {"end-vlarb-tables", Kw::kEndVlarbTables, Shape::kBare},
    {"vlarb-scope", Kw::kVlarbScope, Shape::kBare},
    {"end-vlarb-scope", Kw::kEndVlarbScope, Shape::kBare},
    {"sl2vl-tables", Kw::kSl2vlTables, Shape::kBare},
    {"end-sl2vl-tables", Kw::kEndSl2vlTables, Shape::kBare},
    {"sl2vl-scope", Kw::kSl2vlScope, Shape::kBare},
    {"end-sl2vl-scope", Kw::kEndSl2vlScope, Shape::kBare},
    {"qos-levels", Kw::kQosLevels, Shape::kBare},
    {"end-qos-levels", Kw::kEndQosLevels, Shape::kBare},
    {"qos-level", Kw::kQosLevel, Shape::kBare},
    {"end-qos-level", Kw::kEndQosLevel, Shape::kBare},
    {"qos-match-rules", Kw::kQosMatchRules, Shape::kBare},
    {"end-qos-match-rules", Kw::kEndQosMatchRules, Shape::kBare},
    {"qos-match-rule", Kw::kQosMatchRule, Shape::kBare},
    {"end-qos-match-rule", Kw::kEndQosMatchRule, Shape::kBare},
    {"port-guid", Kw::kPortGuid, Shape::kColon},
    {"port-name", Kw::kPortName, Shape::kColon, Mode::kNames},
    {"partition", Kw::kPartition, Shape::kColon, Mode::kNames},
    {"node-type", Kw::kNodeType, Shape::kColon, Mode::kNodeType},
    {"name", Kw::kName, Shape::kColon, Mode::kNames},
    {"use", Kw::kUse, Shape::kColon, Mode::kDescription},
    {"group", Kw::kGroup, Shape::kColon, Mode::kNames},
    {"vlarb-high", Kw::kVlarbHigh, Shape::kColon},
    {"vlarb-low", Kw::kVlarbLow, Shape::kColon},
    {"vl-high-limit", Kw::kVlHighLimit, Shape::kColon},
    {"to", Kw::kTo, Shape::kColon},
    {"from", Kw::kFrom, Shape::kColon},
    {"across-to", Kw::kAcrossTo, Shape::kColon, Mode::kNames},
    {"across-from", Kw::kAcrossFrom, Shape::kColon, Mode::kNames},
    {"across", Kw::kAcross, Shape::kColon, Mode::kNames},
    {"sl2vl-table", Kw::kSl2vlTable, Shape::kColon},
    {"sl", Kw::kSl, Shape::kColon},
    {"mtu-limit", Kw::kMtuLimit, Shape::kColon},
    {"rate-limit", Kw::kRateLimit, Shape::kColon},
    {"packet-life", Kw::kPacketLife, Shape::kColon},
    {"path-bits", Kw::kPathBits, Shape::kColon},
    {"qos-class", Kw::kQosClass, Shape::kColon},
    {"source", Kw::kSource, Shape::kColon, Mode::kNames},
    {"destination", Kw::kDestination, Shape::kColon, Mode::kNames},
    {"service-id", Kw::kServiceId, Shape::kColon},
    {"pkey", Kw::kPKey, Shape::kColon},
    {"qos-level-name", Kw::kQosLevelName, Shape::kColon, Mode::kNames},
    {"router", Kw::kRouter, Shape::kBare, Mode::kNone, {}, true},
    {"ca", Kw::kCa, Shape::kBare, Mode::kNone, {}, true},
    {"switch", Kw::kSwitch, Shape::kBare, Mode::kNone, {}, true},
    {"self", Kw::kSelf, Shape::kBare, Mode::kNone, {}, true},
    {"all", Kw::kAll, Shape::kBare, Mode::kNone, {}, true},
    {"default", Kw::kUlpDefault, Shape::kColon, Mode::kNone, {}, true},
    {"any", Kw::kUlpAnyServiceId, Shape::kUlpComma, Mode::kNone, "service-id", true},
    {"any", Kw::kUlpAnyPKey, Shape::kUlpComma, Mode::kNone, "pkey", true},
    {"any", Kw::kUlpAnyTargetGuid, Shape::kUlpComma, Mode::kNone, "target-port-guid", true},
    {"any", Kw::kUlpAnySourceGuid, Shape::kUlpComma, Mode::kNone, "source-port-guid", true},
    {"any", Kw::kUlpAnySourceTargetGuid, Shape::kUlpComma, Mode::kNone, "source-target-port-guid",
     true},
    {"sdp", Kw::kUlpSdpDefault, Shape::kColon, Mode::kNone, {}, true},
    {"sdp", Kw::kUlpSdpPort, Shape::kUlpComma, Mode::kNone, "port-num", true},
    {"rds", Kw::kUlpRdsDefault, Shape::kColon, Mode::kNone, {}, true},
    {"rds", Kw::kUlpRdsPort, Shape::kUlpComma, Mode::kNone, "port-num", true},
    {"iser", Kw::kUlpIserDefault, Shape::kColon, Mode::kNone, {}, true},
    {"iser", Kw::kUlpIserPort, Shape::kUlpComma, Mode::kNone, "port-num", true},
    {"srp", Kw::kUlpSrpGuid, Shape::kUlpComma, Mode::kNone, "target-port-guid", true},
    {"ipoib", Kw::kUlpIpoibDefault, Shape::kColon, Mode::kNone, {}, true},
    {"ipoib", Kw::kUlpIpoibPKey, Shape::kUlpComma, Mode::kNone, "pkey", true},
}};

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

bool same(char a, char b, bool any_case) {
  if (!any_case) return a == b;
  return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
}

// Length of `word` at s[i], 0 if absent.
std::size_t literal(std::string_view s, std::size_t i, std::string_view word, bool any_case) {
  if (s.size() - i < word.size()) return 0;
  for (std::size_t k = 0; k < word.size(); ++k) {
    if (!same(s[i + k], word[k], any_case)) return 0;
  }
  return word.size();
}

// [ \t]*<sep>[ \t]* at s[i]: its length, 0 if absent.
std::size_t separator(std::string_view s, std::size_t i, char sep) {
  std::size_t j = i;
  while (j < s.size() && is_blank(s[j]))
    ++j;
  if (j >= s.size() || s[j] != sep) return 0;
  ++j;
  while (j < s.size() && is_blank(s[j]))
    ++j;
  return j - i;
}

std::size_t match_rule(std::string_view s, std::size_t i, const KeywordRule& r) {
  const std::size_t w = literal(s, i, r.word, r.any_case);
  if (w == 0) return 0;
  switch (r.shape) {
    case Shape::kBare:
      return w;
    case Shape::kColon: {
      const std::size_t c = separator(s, i + w, ':');
      return c == 0 ? 0 : w + c;
    }
    case Shape::kUlpComma: {
      const std::size_t c = separator(s, i + w, ',');
      if (c == 0) return 0;
      const std::size_t t = literal(s, i + w + c, r.second, false);
      return t == 0 ? 0 : w + c + t;
    }
  }
  return 0;
}

bool is_node_type(Kw kw) {
  return kw == Kw::kCa || kw == Kw::kSwitch || kw == Kw::kRouter || kw == Kw::kSelf ||
         kw == Kw::kAll;
}

std::size_t number_length(std::string_view s, std::size_t i) {
  if (i + 2 < s.size() && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X') &&
      std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
    std::size_t j = i + 2;
    while (j < s.size() && std::isxdigit(static_cast<unsigned char>(s[j])))
      ++j;
    return j - i;
  }
  std::size_t j = i;
  while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j])))
    ++j;
  return j - i;
}

}  // namespace

std::string keyword_spelling(Kw kw) {
  for (const auto& r : kRules) {
    if (r.kw != kw) continue;
    switch (r.shape) {
      case Shape::kColon:
        return std::string(r.word) + ":";
      case Shape::kUlpComma:
        return std::string(r.word) + ", " + std::string(r.second);
      case Shape::kBare:
        return std::string(r.word);
    }
  }
  return "?";
}

std::vector<Token> tokenize(std::string_view s) {
  std::vector<Token> out;
  Mode mode = Mode::kNone;
  unsigned line = 1, column = 1;
  std::size_t i = 0;
  auto advance = [&](std::size_t n) {
    for (std::size_t k = 0; k < n; ++k, ++i) {
      if (s[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
  };
  auto text_mode = [&] { return mode == Mode::kDescription || mode == Mode::kNames; };
  while (i < s.size()) {
    const char c = s[i];
    if (c == '#') {  // comment: to the end of the line, which ends the value as well
      std::size_t j = i;
      while (j < s.size() && s[j] != '\n')
        ++j;
      advance(j - i);
      continue;
    }
    if (c == '\n') {
      mode = Mode::kNone;
      advance(1);
      continue;
    }
    if (is_blank(c)) {
      std::size_t j = i;
      while (j < s.size() && is_blank(s[j]))
        ++j;
      // Blanks inside a description are part of it; trailing ones are not.
      if (mode == Mode::kDescription && j < s.size() && s[j] != '\n' && s[j] != '#')
        out.push_back({Tok::kText, Kw::kNone, std::string(s.substr(i, j - i)), {line, column}});
      advance(j - i);
      continue;
    }
    const SourcePos pos{line, column};

    // Longest keyword (first in rule order on a tie).
    const KeywordRule* best = nullptr;
    std::size_t best_len = 0;
    auto consider = [&](const KeywordRule& r) {
      const std::size_t n = match_rule(s, i, r);
      if (n > best_len) {
        best = &r;
        best_len = n;
      }
    };
    for (const auto& r : kRules)
      consider(r);
    const std::size_t num_len = number_length(s, i);
    std::size_t quoted_len = 0;
    if (c == '"') {
      const std::size_t close = s.find('"', i + 1);
      if (close != std::string_view::npos) quoted_len = close - i + 1;
    }

    if (best != nullptr && best_len >= num_len && best_len >= quoted_len && best_len >= 1) {
      const std::string spelled(s.substr(i, best_len));
      if (mode == Mode::kDescription) {
        out.push_back({Tok::kText, Kw::kNone, spelled, pos});
      } else if (is_node_type(best->kw)) {
        out.push_back({mode == Mode::kNodeType ? Tok::kKeyword : Tok::kText,
                       mode == Mode::kNodeType ? best->kw : Kw::kNone, spelled, pos});
      } else {
        out.push_back({Tok::kKeyword, best->kw, spelled, pos});
        if (best->shape != Shape::kBare) mode = best->sets;
      }
      advance(best_len);
      continue;
    }
    if (num_len > 0 && num_len >= quoted_len) {
      out.push_back({text_mode() ? Tok::kText : Tok::kNumber, Kw::kNone,
                     std::string(s.substr(i, num_len)), pos});
      advance(num_len);
      continue;
    }
    if (quoted_len > 0) {
      out.push_back({Tok::kText, Kw::kNone, std::string(s.substr(i + 1, quoted_len - 2)), pos});
      advance(quoted_len);
      continue;
    }
    Tok kind = Tok::kText;
    switch (c) {
      case '-':
        kind = text_mode() ? Tok::kText : Tok::kDash;
        break;
      case ':':
        kind = text_mode() ? Tok::kText : Tok::kColon;
        break;
      case ',':
        kind = mode == Mode::kDescription ? Tok::kText : Tok::kComma;
        break;
      case '*':
        kind = text_mode() ? Tok::kText : Tok::kAsterisk;
        break;
      default:
        break;
    }
    out.push_back({kind, Kw::kNone, std::string(1, c), pos});
    advance(1);
  }
  out.push_back({Tok::kEnd, Kw::kNone, {}, {line, column}});
  return out;
}

}  // namespace ibsm::qos_policy
