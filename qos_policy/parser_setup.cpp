// QoS policy reader (parser_impl.hpp): the qos-setup section, its vlarb-tables and
// sl2vl-tables and their scopes (groups, ports, the tables themselves).
#include "qos_policy/parser_impl.hpp"

namespace ibsm::qos_policy::detail {

bool Parser::qos_setup() {
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

bool Parser::vlarb_scope() {
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

bool Parser::port_set(std::bitset<128>& bits, bool& set, const char* what) {
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

bool Parser::sl2vl_scope() {
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
        if (vls[n] > 15) return error(k.pos, "wrong VL value in 'sl2vl-table' (should be 0 to 15)");
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

}  // namespace ibsm::qos_policy::detail
