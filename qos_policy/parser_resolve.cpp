// QoS policy reader (parser_impl.hpp): the references, resolved as OpenSM's
// osm_qos_policy_validate does once the grammar is read: the levels and port groups
// the match rules name, the DEFAULT level, then the qos-ulps rules appended.
#include "qos_policy/parser_impl.hpp"

#include <tuple>

#include "common/text.hpp"

namespace ibsm::qos_policy::detail {

std::optional<std::size_t> Parser::find_level(std::string_view name) const {
  for (std::size_t n = 0; n < p_.levels.size(); ++n) {
    if (!p_.levels[n].generated && iequal(p_.levels[n].name, name)) return n;
  }
  return std::nullopt;
}

std::optional<std::size_t> Parser::find_group(std::string_view name) const {
  for (std::size_t n = 0; n < p_.groups.size(); ++n) {
    if (!p_.groups[n].generated && iequal(p_.groups[n].name, name)) return n;
  }
  return std::nullopt;
}

bool Parser::resolve() {
  // Rules written in qos-match-rules first.
  unsigned num = 1;
  for (MatchRule& r : p_.rules) {
    const auto l = find_level(r.level_name);
    if (!l)
      return error(
          r.level_pos,
          "qos-match-rule " + std::to_string(num) + ": qos-level '" + r.level_name + "' not found",
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
                       "qos-match-rule " + std::to_string(num) + ": " + what + " port-group '" + n +
                           "' not found",
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

}  // namespace ibsm::qos_policy::detail
