// QoS policy reader (parser_impl.hpp): the qos-levels section (SL, limits, path
// bits, P_Keys of each level) and the qos-match-rules section (what each rule
// matches and the level it names).
#include "qos_policy/parser_impl.hpp"

namespace ibsm::qos_policy::detail {

bool Parser::levels() {
  const SourcePos opened = take().pos;
  while (at(Kw::kQosLevel)) {
    if (!level()) return false;
  }
  return close(Kw::kEndQosLevels, "qos-levels", opened);
}

// One number of a qos-level, given once, within [lo, hi].
bool Parser::level_number(std::optional<std::uint8_t>& into, const Token& key, const char* name,
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

bool Parser::level() {
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

bool Parser::match_rules() {
  const SourcePos opened = take().pos;
  while (at(Kw::kQosMatchRule)) {
    if (!match_rule()) return false;
  }
  return close(Kw::kEndQosMatchRules, "qos-match-rules", opened);
}

bool Parser::match_rule() {
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
  if (!has_level) return error(end, "match-rule validation failed - no 'qos-level-name' specified");
  p_.rules.push_back(std::move(r));
  return true;
}

}  // namespace ibsm::qos_policy::detail
