// QoS policy grammar (parser.hpp). Each section function reads its keyword's
// entries until the closing keyword; each entry reads one value of the form its key
// takes (lexer.hpp sets the token modes that make the forms unambiguous).
#include "qos_policy/parser.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <tuple>

#include "common/atomic_file.hpp"
#include "common/c_number.hpp"
#include "common/text.hpp"
#include "qos_policy/errors.hpp"
#include "qos_policy/lexer.hpp"

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

std::string describe(const Token& t) {
  switch (t.kind) {
    case Tok::kEnd:
      return "end of file";
    case Tok::kKeyword:
      return "'" + strip(t.text) + "'";
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

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : t_(std::move(tokens)) {}

  Result<Policy, ParseError> run() {
    if (!file()) return fail(err_);
    if (!resolve()) return fail(err_);
    return std::move(p_);
  }

 private:
  const Token& peek() const { return t_[i_]; }
  bool at(Kw kw) const { return peek().kind == Tok::kKeyword && peek().kw == kw; }
  bool at(Tok k) const { return peek().kind == k; }
  const Token& take() {
    const Token& t = t_[i_];
    if (t.kind != Tok::kEnd) ++i_;
    return t;
  }

  bool error(SourcePos pos, std::string msg, ErrorId id = kPolicySyntax) {
    err_ = ParseError{id, pos, std::move(msg)};
    return false;
  }
  bool unexpected(const std::string& expected) {
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

  // ---- values --------------------------------------------------------------

  bool single_string(std::string& out) {
    if (!at(Tok::kText)) return unexpected("a name or text");
    std::string s;
    while (at(Tok::kText))
      s += take().text;
    out = strip(std::move(s));
    return true;
  }
  bool string_list(std::vector<std::string>& out) {
    do {
      std::string s;
      if (!single_string(s)) return false;
      out.push_back(std::move(s));
    } while (at(Tok::kComma) && (take(), true));
    return true;
  }
  bool number(std::uint64_t& out) {
    if (!at(Tok::kNumber)) return unexpected("a number");
    const Token& t = take();
    auto v = c_number(t.text);
    if (!v) return error(t.pos, "number " + t.text + " is too large");
    out = *v;
    return true;
  }
  bool num_list(std::vector<std::uint64_t>& out) {
    do {
      std::uint64_t v = 0;
      if (!number(v)) return false;
      out.push_back(v);
    } while (at(Tok::kComma) && (take(), true));
    return true;
  }
  bool pair_list(std::vector<std::pair<std::uint64_t, std::uint64_t>>& out) {
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
  bool ranges(Ranges& out, bool pkey = false) {
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

  // ---- sections ------------------------------------------------------------

  bool file() {
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
  bool close(Kw end, const char* what, SourcePos opened) {
    if (at(end)) {
      take();
      return true;
    }
    if (at(Tok::kEnd))
      return error(peek().pos, std::string(what) + " opened at line " +
                                   std::to_string(opened.line) + " is not closed with '" +
                                   keyword_spelling(end) + "'");
    return unexpected("'" + keyword_spelling(end) + "' or an entry of " + what);
  }

  bool port_groups() {
    const SourcePos opened = take().pos;
    if (!at(Kw::kPortGroup)) return unexpected("'port-group'");
    while (at(Kw::kPortGroup)) {
      if (!port_group()) return false;
    }
    return close(Kw::kEndPortGroups, "port-groups", opened);
  }

  bool port_group() {
    PortGroup g;
    g.pos = take().pos;
    bool has_name = false, has_use = false;
    for (;;) {
      const Token& k = peek();
      if (k.kind != Tok::kKeyword) break;
      if (k.kw == Kw::kName) {
        take();
        if (has_name) return error(k.pos, "port-group has multiple 'name' tags");
        if (!single_string(g.name)) return false;
        has_name = true;
      } else if (k.kw == Kw::kUse) {
        take();
        if (has_use) return error(k.pos, "port-group has multiple 'use' tags");
        if (!single_string(g.use)) return false;
        has_use = true;
      } else if (k.kw == Kw::kPortGuid) {
        take();
        if (!ranges(g.guids)) return false;
      } else if (k.kw == Kw::kPortName) {
        take();
        const std::size_t first = g.port_names.size();
        if (!string_list(g.port_names)) return false;
        for (std::size_t n = first; n < g.port_names.size(); ++n) {
          if (!check_port_name(g.port_names[n], k.pos)) return false;
        }
      } else if (k.kw == Kw::kPKey) {
        take();
        if (!ranges(g.pkeys, true)) return false;
      } else if (k.kw == Kw::kPartition) {
        take();
        if (!string_list(g.partitions)) return false;
      } else if (k.kw == Kw::kNodeType) {
        take();
        do {
          if (!at(Tok::kKeyword)) return unexpected("CA, SWITCH, ROUTER, ALL or SELF");
          switch (peek().kw) {
            case Kw::kCa:
              g.node_types |= kTypeCa;
              break;
            case Kw::kSwitch:
              g.node_types |= kTypeSwitch;
              break;
            case Kw::kRouter:
              g.node_types |= kTypeRouter;
              break;
            case Kw::kAll:
              g.node_types |= kTypeCa | kTypeSwitch | kTypeRouter;
              break;
            case Kw::kSelf:
              g.self = true;
              break;
            default:
              return unexpected("CA, SWITCH, ROUTER, ALL or SELF");
          }
          take();
        } while (at(Tok::kComma) && (take(), true));
      } else {
        break;
      }
    }
    if (!at(Kw::kEndPortGroup)) return close(Kw::kEndPortGroup, "port-group", g.pos);
    const SourcePos end = take().pos;
    if (!has_name) return error(end, "port-group validation failed - no port group name specified");
    p_.groups.push_back(std::move(g));
    return true;
  }

  // "NodeDescription/P<num>": the last slash separates (OpenSM).
  bool check_port_name(const std::string& s, SourcePos pos) {
    const auto slash = s.rfind('/');
    if (slash == std::string::npos || s.size() - slash < 3 ||
        (s[slash + 1] != 'p' && s[slash + 1] != 'P'))
      return error(pos, "'" + s + "' - illegal port name (NodeDescription/P<num>)");
    const auto num = c_number(std::string_view(s).substr(slash + 2));
    if (!num || *num == 0) return error(pos, "'" + s + "' - illegal port number in port name");
    return true;
  }

  bool qos_setup() {
    const SourcePos opened = take().pos;
    for (;;) {
      if (at(Kw::kVlarbTables)) {
        const SourcePos o = take().pos;
        while (at(Kw::kVlarbScope)) {
          if (!vlarb_scope()) return false;
        }
        if (!close(Kw::kEndVlarbTables, "vlarb-tables", o)) return false;
      } else if (at(Kw::kSl2vlTables)) {
        const SourcePos o = take().pos;
        while (at(Kw::kSl2vlScope)) {
          if (!sl2vl_scope()) return false;
        }
        if (!close(Kw::kEndSl2vlTables, "sl2vl-tables", o)) return false;
      } else {
        break;
      }
    }
    return close(Kw::kEndQosSetup, "qos-setup", opened);
  }

  bool vlarb_scope() {
    VlArbScope v;
    v.pos = take().pos;
    for (;;) {
      const Token& k = peek();
      if (k.kind != Tok::kKeyword) break;
      if (k.kw == Kw::kGroup) {
        take();
        if (!string_list(v.groups)) return false;
      } else if (k.kw == Kw::kAcross) {
        take();
        if (!string_list(v.across)) return false;
      } else if (k.kw == Kw::kVlarbHigh || k.kw == Kw::kVlarbLow) {
        take();
        auto& list = k.kw == Kw::kVlarbHigh ? v.high : v.low;
        const std::size_t first = list.size();
        if (!pair_list(list)) return false;
        for (std::size_t n = first; n < list.size(); ++n) {
          if (list[n].first > 14)
            return error(k.pos,
                         "VL " + std::to_string(list[n].first) + " in VL arbitration table (0-14)");
          if (list[n].second > 255)
            return error(k.pos, "weight " + std::to_string(list[n].second) + " (0-255)");
        }
        if (list.size() > 64) return error(k.pos, "more than 64 VL arbitration entries");
      } else if (k.kw == Kw::kVlHighLimit) {
        take();
        std::uint64_t n = 0;
        if (!number(n)) return false;
        if (n > 255) return error(k.pos, "vl-high-limit " + std::to_string(n) + " (0-255)");
        v.high_limit = n;
      } else {
        break;
      }
    }
    if (!at(Kw::kEndVlarbScope)) return close(Kw::kEndVlarbScope, "vlarb-scope", v.pos);
    const SourcePos end = take().pos;
    if (v.groups.empty() && v.across.empty())
      return error(end,
                   "vlarb-scope validation failed - no port groups specified by 'group' or by "
                   "'across'");
    p_.vlarb.push_back(std::move(v));
    return true;
  }

  bool port_set(std::bitset<128>& bits, bool& set, const char* what) {
    set = true;
    if (at(Tok::kAsterisk)) {
      take();
      bits.set();
      return true;
    }
    const SourcePos pos = peek().pos;
    Ranges r;
    if (!ranges(r)) return false;
    for (const Range& x : r) {
      if (x.hi >= kMaxSwitchPorts)
        return error(pos, std::string("port number out of range '") + what + "' list (0-127)");
      for (std::uint64_t p = x.lo; p <= x.hi; ++p)
        bits.set(p);
    }
    return true;
  }

  bool sl2vl_scope() {
    Sl2VlScope v;
    v.pos = take().pos;
    bool has_table = false;
    for (;;) {
      const Token& k = peek();
      if (k.kind != Tok::kKeyword) break;
      if (k.kw == Kw::kGroup) {
        take();
        if (!string_list(v.groups)) return false;
      } else if (k.kw == Kw::kAcross) {
        take();
        std::vector<std::string> names;
        if (!string_list(names)) return false;
        v.across_from.insert(v.across_from.end(), names.begin(), names.end());
        v.across_to.insert(v.across_to.end(), names.begin(), names.end());
      } else if (k.kw == Kw::kAcrossFrom) {
        take();
        if (!string_list(v.across_from)) return false;
      } else if (k.kw == Kw::kAcrossTo) {
        take();
        if (!string_list(v.across_to)) return false;
      } else if (k.kw == Kw::kFrom) {
        take();
        if (!port_set(v.from, v.from_set, "from")) return false;
      } else if (k.kw == Kw::kTo) {
        take();
        if (!port_set(v.to, v.to_set, "to")) return false;
      } else if (k.kw == Kw::kSl2vlTable) {
        take();
        if (has_table) return error(k.pos, "sl2vl-scope has more than one sl2vl-table");
        std::vector<std::uint64_t> vls;
        if (!num_list(vls)) return false;
        if (vls.size() != 16)
          return error(k.pos, "wrong number of values in 'sl2vl-table' (should be 16, is " +
                                  std::to_string(vls.size()) + ")");
        for (std::size_t n = 0; n < 16; ++n) {
          if (vls[n] > 15)
            return error(k.pos, "wrong VL value in 'sl2vl-table' (should be 0 to 15)");
          v.table[n] = static_cast<std::uint8_t>(vls[n]);
        }
        has_table = true;
      } else {
        break;
      }
    }
    if (!at(Kw::kEndSl2vlScope)) return close(Kw::kEndSl2vlScope, "sl2vl-scope", v.pos);
    const SourcePos end = take().pos;
    if (!has_table) return error(end, "sl2vl-scope validation failed - no sl2vl table specified");
    if (v.groups.empty() && v.across_from.empty() && v.across_to.empty())
      return error(end,
                   "sl2vl-scope validation failed - no port groups specified by 'group', "
                   "'across-to' or 'across-from'");
    p_.sl2vl.push_back(std::move(v));
    return true;
  }

  bool levels() {
    const SourcePos opened = take().pos;
    while (at(Kw::kQosLevel)) {
      if (!level()) return false;
    }
    return close(Kw::kEndQosLevels, "qos-levels", opened);
  }

  // One number of a qos-level, given once, within [lo, hi].
  bool level_number(std::optional<std::uint8_t>& into, const Token& key, const char* name,
                    std::uint64_t lo, std::uint64_t hi) {
    take();
    if (into) return error(key.pos, std::string("'qos-level' has multiple '") + name + "' tags");
    std::uint64_t n = 0;
    const SourcePos pos = peek().pos;
    if (!number(n)) return false;
    if (n < lo || n > hi)
      return error(pos, std::string(name) + " is out of range, value: " + std::to_string(n) + " (" +
                            std::to_string(lo) + "-" + std::to_string(hi) + ")");
    into = static_cast<std::uint8_t>(n);
    return true;
  }

  bool level() {
    Level l;
    l.pos = take().pos;
    bool has_name = false, has_use = false;
    for (;;) {
      const Token& k = peek();
      if (k.kind != Tok::kKeyword) break;
      if (k.kw == Kw::kName) {
        take();
        if (has_name) return error(k.pos, "qos-level has multiple 'name' tags");
        if (!single_string(l.name)) return false;
        has_name = true;
      } else if (k.kw == Kw::kUse) {
        take();
        if (has_use) return error(k.pos, "qos-level has multiple 'use' tags");
        if (!single_string(l.use)) return false;
        has_use = true;
      } else if (k.kw == Kw::kSl) {
        // OpenSM takes any number and then never matches an SL above 15; ibsm refuses it.
        if (!level_number(l.sl, k, "sl", 0, 15)) return false;
      } else if (k.kw == Kw::kMtuLimit) {
        if (!level_number(l.mtu_limit, k, "mtu-limit", 1, 5)) return false;
      } else if (k.kw == Kw::kRateLimit) {
        if (!level_number(l.rate_limit, k, "rate-limit", 2, 24)) return false;
      } else if (k.kw == Kw::kPacketLife) {
        if (!level_number(l.packet_life, k, "packet-life", 0, 63)) return false;
      } else if (k.kw == Kw::kPathBits) {
        take();
        if (!ranges(l.path_bits)) return false;
      } else if (k.kw == Kw::kPKey) {
        take();
        if (!ranges(l.pkeys, true)) return false;
      } else {
        break;
      }
    }
    if (!at(Kw::kEndQosLevel)) return close(Kw::kEndQosLevel, "qos-level", l.pos);
    const SourcePos end = take().pos;
    if (!l.sl) return error(end, "qos-level validation failed - no 'sl' specified");
    if (!has_name) return error(end, "qos-level validation failed - no 'name' specified");
    p_.levels.push_back(std::move(l));
    return true;
  }

  bool match_rules() {
    const SourcePos opened = take().pos;
    while (at(Kw::kQosMatchRule)) {
      if (!match_rule()) return false;
    }
    return close(Kw::kEndQosMatchRules, "qos-match-rules", opened);
  }

  bool match_rule() {
    MatchRule r;
    r.pos = take().pos;
    bool has_use = false, has_level = false;
    for (;;) {
      const Token& k = peek();
      if (k.kind != Tok::kKeyword) break;
      if (k.kw == Kw::kUse) {
        take();
        if (has_use) return error(k.pos, "'qos-match-rule' has multiple 'use' tags");
        if (!single_string(r.use)) return false;
        has_use = true;
      } else if (k.kw == Kw::kQosClass) {
        take();
        if (!ranges(r.qos_class)) return false;
      } else if (k.kw == Kw::kQosLevelName) {
        take();
        if (has_level) return error(k.pos, "qos-match-rule has multiple 'qos-level-name' tags");
        r.level_pos = peek().pos;
        if (!single_string(r.level_name)) return false;
        has_level = true;
      } else if (k.kw == Kw::kSource) {
        take();
        if (!string_list(r.source)) return false;
      } else if (k.kw == Kw::kDestination) {
        take();
        if (!string_list(r.destination)) return false;
      } else if (k.kw == Kw::kServiceId) {
        take();
        if (!ranges(r.service_id)) return false;
      } else if (k.kw == Kw::kPKey) {
        take();
        if (!ranges(r.pkey, true)) return false;
        p_.rule_pkeys.emplace_back(r.pkey, k.pos);
      } else {
        break;
      }
    }
    if (!at(Kw::kEndQosMatchRule)) return close(Kw::kEndQosMatchRule, "qos-match-rule", r.pos);
    const SourcePos end = take().pos;
    if (!has_level)
      return error(end, "match-rule validation failed - no 'qos-level-name' specified");
    p_.rules.push_back(std::move(r));
    return true;
  }

  // ---- qos-ulps ------------------------------------------------------------

  bool ulp_sl(MatchRule& r) {
    std::uint64_t sl = 0;
    const SourcePos pos = peek().pos;
    if (!number(sl)) return false;
    if (sl > 15) return error(pos, "illegal SL value " + std::to_string(sl) + " (0-15)");
    r.level = simple_level(static_cast<std::uint8_t>(sl));
    ulp_rules_.push_back(std::move(r));
    return true;
  }

  std::size_t simple_level(std::uint8_t sl) {
    for (std::size_t n = 0; n < simple_.size(); ++n) {
      if (simple_[n].sl == sl) return n;
    }
    Level l;
    l.name = "SimpleQoSLevel_SL" + std::to_string(sl);
    l.use = "qos-ulps SL " + std::to_string(sl);
    l.sl = sl;
    l.generated = true;
    simple_.push_back(std::move(l));
    return simple_.size() - 1;
  }

  // A port group made from a ULP's GUID list (OpenSM's _SRP_Targets_ and friends).
  std::size_t ulp_group(const char* name, const Ranges& guids, SourcePos pos) {
    PortGroup g;
    g.name = name;
    g.use = "Generated from ULP rules";
    g.guids = guids;
    g.generated = true;
    g.pos = pos;
    ulp_groups_.push_back(std::move(g));
    return ulp_groups_.size() - 1;
  }

  bool ulps() {
    const SourcePos opened = take().pos;
    bool any = false;
    for (;;) {
      const Token& k = peek();
      if (k.kind != Tok::kKeyword) break;
      MatchRule r;
      r.pos = k.pos;
      r.ulp = strip(k.text);
      auto port_ranges = [&](std::uint64_t base, const char* what) {
        const SourcePos pos = peek().pos;
        if (!ranges(r.service_id)) return false;
        for (Range& x : r.service_id) {
          if (x.hi > 0xFFFF) return error(pos, std::string(what) + " port number out of range");
          x.lo += base;
          x.hi += base;
        }
        return true;
      };
      auto colon = [&] {
        if (!at(Tok::kColon)) return unexpected("':' and the SL");
        take();
        return true;
      };
      switch (k.kw) {
        case Kw::kUlpDefault: {
          take();
          std::uint64_t sl = 0;
          const SourcePos pos = peek().pos;
          if (!number(sl)) return false;
          if (sl > 15) return error(pos, "illegal SL value " + std::to_string(sl) + " (0-15)");
          ulp_default_ = static_cast<std::uint8_t>(sl);
          ulp_default_pos_ = k.pos;
          any = true;
          continue;
        }
        case Kw::kUlpAnyServiceId:
          take();
          if (!ranges(r.service_id) || !colon()) return false;
          break;
        case Kw::kUlpAnyPKey:
          take();
          if (!ranges(r.pkey, true) || !colon()) return false;
          p_.rule_pkeys.emplace_back(r.pkey, k.pos);
          break;
        case Kw::kUlpAnyTargetGuid:
        case Kw::kUlpSrpGuid:
        case Kw::kUlpAnySourceGuid:
        case Kw::kUlpAnySourceTargetGuid: {
          take();
          Ranges g;
          if (!ranges(g) || !colon()) return false;
          const char* name = k.kw == Kw::kUlpSrpGuid         ? "_SRP_Targets_"
                             : k.kw == Kw::kUlpAnyTargetGuid ? "_ULP_Targets_"
                             : k.kw == Kw::kUlpAnySourceGuid ? "_ULP_Sources_"
                                                             : "_ULP_Sources_Targets_";
          const std::size_t gi = ulp_group(name, g, k.pos);
          if (k.kw != Kw::kUlpAnySourceGuid) r.destination_groups.push_back(gi);
          if (k.kw == Kw::kUlpAnySourceGuid || k.kw == Kw::kUlpAnySourceTargetGuid)
            r.source_groups.push_back(gi);
          break;
        }
        case Kw::kUlpSdpDefault:
          take();
          r.service_id = {{kSdpServiceId, kSdpServiceId + 0xFFFF}};
          break;
        case Kw::kUlpSdpPort:
          take();
          if (!port_ranges(kSdpServiceId, "SDP") || !colon()) return false;
          break;
        case Kw::kUlpRdsDefault:
          take();
          r.service_id = {{kRdsServiceId + kRdsPort, kRdsServiceId + kRdsPort}};
          break;
        case Kw::kUlpRdsPort:
          take();
          if (!port_ranges(kRdsServiceId, "RDS") || !colon()) return false;
          break;
        case Kw::kUlpIserDefault:
          take();
          r.service_id = {{kIserServiceId + kIserPort, kIserServiceId + kIserPort}};
          break;
        case Kw::kUlpIserPort:
          take();
          if (!port_ranges(kIserServiceId, "iSER") || !colon()) return false;
          break;
        case Kw::kUlpIpoibDefault:
          take();
          r.pkey = {{kDefaultPKey, kDefaultPKey}};
          p_.ipoib_checks.push_back({r.pkey, k.pos});
          break;
        case Kw::kUlpIpoibPKey:
          take();
          if (!ranges(r.pkey, true) || !colon()) return false;
          p_.ipoib_checks.push_back({r.pkey, k.pos});
          break;
        default:
          goto done;
      }
      normalize(r.service_id);
      if (!ulp_sl(r)) return false;
      any = true;
    }
  done:
    if (!any && !at(Kw::kEndQosUlps))
      return unexpected("a qos-ulps rule (default, any, sdp, rds, iser, srp, ipoib)");
    if (!any) return unexpected("a qos-ulps rule before 'end-qos-ulps'");
    return close(Kw::kEndQosUlps, "qos-ulps", opened);
  }

  // ---- references (OpenSM osm_qos_policy_validate) -------------------------

  std::optional<std::size_t> find_level(std::string_view name) const {
    for (std::size_t n = 0; n < p_.levels.size(); ++n) {
      if (!p_.levels[n].generated && iequal(p_.levels[n].name, name)) return n;
    }
    return std::nullopt;
  }
  std::optional<std::size_t> find_group(std::string_view name) const {
    for (std::size_t n = 0; n < p_.groups.size(); ++n) {
      if (!p_.groups[n].generated && iequal(p_.groups[n].name, name)) return n;
    }
    return std::nullopt;
  }

  bool resolve() {
    // Rules written in qos-match-rules first.
    unsigned num = 1;
    for (MatchRule& r : p_.rules) {
      const auto l = find_level(r.level_name);
      if (!l)
        return error(r.level_pos,
                     "qos-match-rule " + std::to_string(num) + ": qos-level '" + r.level_name +
                         "' not found",
                     kPolicyReference);
      r.level = *l;
      using Side =
          std::tuple<const std::vector<std::string>*, std::vector<std::size_t>*, const char*>;
      for (const auto& [names, groups, what] :
           {Side{&r.source, &r.source_groups, "source"},
            Side{&r.destination, &r.destination_groups, "destination"}}) {
        for (const std::string& n : *names) {
          const auto g = find_group(n);
          if (!g)
            return error(r.pos,
                         "qos-match-rule " + std::to_string(num) + ": " + what + " port-group '" +
                             n + "' not found",
                         kPolicyReference);
          groups->push_back(*g);
        }
      }
      ++num;
    }
    // The default level: a qos-level named DEFAULT, else qos-ulps' `default:`.
    if (const auto d = find_level("default")) {
      p_.default_level = *d;
    } else if (ulp_default_) {
      Level l;
      l.name = "SimpleQoSLevel_DEFAULT";
      l.use = "qos-ulps default";
      l.sl = *ulp_default_;
      l.generated = true;
      l.pos = ulp_default_pos_;
      p_.levels.push_back(std::move(l));
      p_.default_level = p_.levels.size() - 1;
    } else {
      return error(SourcePos{}, "default qos-level (DEFAULT) not defined", kPolicyReference);
    }
    // Then the qos-ulps rules, with their generated levels and groups appended.
    const std::size_t level_base = p_.levels.size();
    for (Level& l : simple_)
      p_.levels.push_back(std::move(l));
    const std::size_t group_base = p_.groups.size();
    for (PortGroup& g : ulp_groups_)
      p_.groups.push_back(std::move(g));
    for (MatchRule& r : ulp_rules_) {
      r.level += level_base;
      for (auto& g : r.source_groups)
        g += group_base;
      for (auto& g : r.destination_groups)
        g += group_base;
      r.level_name = p_.levels[r.level].name;
      p_.rules.push_back(std::move(r));
    }
    return true;
  }

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

}  // namespace

Result<Policy, ParseError> parse_policy(std::string_view text) {
  return Parser(tokenize(text)).run();
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
