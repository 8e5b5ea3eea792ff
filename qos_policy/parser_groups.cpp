// QoS policy reader (parser_impl.hpp): the port-groups section, each port-group's
// name, use, port-guid, port-name, pkey, partition and node-type entries.
#include "qos_policy/parser_impl.hpp"

namespace ibsm::qos_policy::detail {

bool Parser::port_groups() {
  const SourcePos opened = take().pos;
  if (!at(Kw::kPortGroup)) return unexpected("'port-group'");
  while (at(Kw::kPortGroup)) {
    if (!port_group()) return false;
  }
  return close(Kw::kEndPortGroups, "port-groups", opened);
}

bool Parser::port_group() {
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
bool Parser::check_port_name(const std::string& s, SourcePos pos) {
  const auto slash = s.rfind('/');
  if (slash == std::string::npos || s.size() - slash < 3 ||
      (s[slash + 1] != 'p' && s[slash + 1] != 'P'))
    return error(pos, "'" + s + "' - illegal port name (NodeDescription/P<num>)");
  const auto num = c_number(std::string_view(s).substr(slash + 2));
  if (!num || *num == 0) return error(pos, "'" + s + "' - illegal port number in port name");
  return true;
}

}  // namespace ibsm::qos_policy::detail
