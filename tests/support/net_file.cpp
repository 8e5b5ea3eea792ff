#include "tests/support/net_file.hpp"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

namespace ibsm::testsupport {
namespace {

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

// One listed port: where the file says it goes, and where it said so.
struct PortDecl {
  std::string remote;
  unsigned remote_port = 1;
  std::size_t line = 0;
};

class Parser {
 public:
  Parser(std::string_view text, std::string_view source) : source_(source) {
    std::size_t pos = 0;
    while (pos <= text.size()) {
      const std::size_t nl = text.find('\n', pos);
      std::string_view l = text.substr(pos, nl == std::string_view::npos ? text.npos : nl - pos);
      if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
      lines_.push_back(l);
      if (nl == std::string_view::npos) break;
      pos = nl + 1;
    }
  }

  Result<Fabric> run() {
    while (next_ < lines_.size()) {
      const std::size_t no = next_++;
      if (Status st = top_level(lines_[no], no + 1); !st) return fail(st.error());
    }
    if (Status st = connect(); !st) return fail(st.error());
    return std::move(fabric_);
  }

 private:
  Unexpected<Error> error(std::size_t line, const std::string& what) const {
    return fail(kNetFileError, std::string(source_) + ":" + std::to_string(line) + ": " + what);
  }

  Status top_level(std::string_view l, std::size_t no) {
    if (starts_with(l, "Switch")) return node(l, no, NodeType::kSwitch, 6);
    if (starts_with(l, "Hca")) return node(l, no, NodeType::kCa, 3);
    if (starts_with(l, "Ca")) return node(l, no, NodeType::kCa, 2);
    if (starts_with(l, "Rt")) return node(l, no, NodeType::kRouter, 2);
    if (starts_with(l, "switchguid")) return guid_base(l, no, switch_guid_);
    if (starts_with(l, "hcaguids") || starts_with(l, "caguid") || starts_with(l, "rtguid"))
      return guid_base(l, no, ca_guid_);
    if (starts_with(l, "include") || starts_with(l, "module") || starts_with(l, "do"))
      return error(no, "'" + std::string(l) + "' is not supported by this parser");
    return {};  // ibsim ignores every other line too
  }

  struct GuidCounter {
    std::uint64_t base;
    std::uint64_t next;
  };

  Status guid_base(std::string_view l, std::size_t no, GuidCounter& c) {
    const std::size_t eq = l.find('=');
    const std::size_t plus = l.find('+');
    if (eq == l.npos && plus == l.npos) return error(no, "GUID base line without '=' or '+'");
    const std::string value(l.substr((eq != l.npos ? eq : plus) + 1));
    const std::uint64_t v = std::strtoull(value.c_str(), nullptr, 0);
    if (eq != l.npos) {
      c.base = v;
      c.next = v;
    } else {
      c.next = c.base + v;
    }
    return {};
  }

  Status node(std::string_view l, std::size_t no, NodeType type, std::size_t keyword) {
    std::size_t p = keyword;
    while (p < l.size() && !std::isdigit(static_cast<unsigned char>(l[p])))
      ++p;
    const unsigned nports =
        static_cast<unsigned>(std::strtoul(std::string(l.substr(p)).c_str(), nullptr, 0));
    if (nports == 0 || nports > 254) return error(no, "bad port count");
    const std::size_t q1 = l.find('"');
    const std::size_t q2 = q1 == l.npos ? l.npos : l.find('"', q1 + 1);
    if (q2 == l.npos) return error(no, "missing quoted node id");
    Node n;
    n.type = type;
    n.id = std::string(l.substr(q1 + 1, q2 - q1 - 1));
    n.num_ports = static_cast<std::uint8_t>(nports);
    if (n.id.empty() || n.id.find_first_of("#@") != std::string::npos)
      return error(no, "bad node id \"" + n.id + "\"");
    if (ids_.count(n.id)) return error(no, "duplicate node id \"" + n.id + "\"");
    std::string_view rest = l.substr(q2 + 1);
    n.description = description(rest);
    if (n.description.empty()) n.description = n.id;
    if (type == NodeType::kSwitch) {
      if (auto v = number_after(rest, "lid ")) n.lid = static_cast<std::uint16_t>(*v);
      if (auto v = number_after(rest, "lmc ")) n.lmc = static_cast<std::uint8_t>(*v);
      n.node_guid = switch_guid_.next++;
    } else {
      n.node_guid = ca_guid_.next;
      ca_guid_.next += nports + 1U;
    }
    n.system_guid = n.node_guid;
    const auto index = static_cast<std::uint32_t>(fabric_.nodes.size());
    ids_[n.id] = index;
    fabric_.nodes.push_back(std::move(n));
    decls_.emplace_back();
    return ports(index, type, nports);
  }

  // Description after '#': quoted, or up to the header keywords ibsim recognises.
  static std::string description(std::string_view& rest) {
    const std::size_t hash = rest.find('#');
    if (hash == rest.npos) return {};
    std::string_view d = rest.substr(hash + 1);
    while (!d.empty() && std::isspace(static_cast<unsigned char>(d.front())))
      d.remove_prefix(1);
    if (!d.empty() && d.front() == '"') {
      const std::size_t end = d.find('"', 1);
      rest = end == d.npos ? std::string_view{} : d.substr(end + 1);
      return std::string(d.substr(1, end == d.npos ? d.npos : end - 1));
    }
    std::size_t end = d.npos;
    for (std::string_view kw : {" enhanced port ", " base port ", " lid ", " lmc "})
      end = std::min(end, d.find(kw));
    rest = end == d.npos ? std::string_view{} : d.substr(end);
    return std::string(d.substr(0, end));
  }

  static std::optional<unsigned long> number_after(std::string_view s, std::string_view key) {
    const std::size_t at = s.find(key);
    if (at == s.npos) return std::nullopt;
    return std::strtoul(std::string(s.substr(at + key.size())).c_str(), nullptr, 0);
  }

  // Port lines of one record: up to nports, '#' lines skipped, ends at any other line
  // (which is then read as a top-level line).
  Status ports(std::uint32_t index, NodeType type, unsigned nports) {
    unsigned listed = 0;
    while (listed < nports && next_ < lines_.size()) {
      const std::string_view l = lines_[next_];
      const std::size_t no = next_ + 1;
      if (starts_with(l, "#")) {
        ++next_;
        continue;
      }
      if (starts_with(l, "@")) return error(no, "port aliases are not supported");
      if (!starts_with(l, "[")) break;
      ++next_;
      ++listed;
      const unsigned port = static_cast<unsigned>(std::atoi(std::string(l.substr(1)).c_str()));
      if (port > nports || (port == 0 && type != NodeType::kSwitch))
        return error(no, "bad port number " + std::to_string(port));
      if (port == 0) continue;  // a switch's SMA port 0 has no cable
      const std::size_t q1 = l.find('"');
      const std::size_t q2 = q1 == l.npos ? l.npos : l.find('"', q1 + 1);
      if (q2 == l.npos) return error(no, "missing quoted remote node id");
      PortDecl d;
      d.remote = std::string(l.substr(q1 + 1, q2 - q1 - 1));
      d.line = no;
      if (q2 + 1 < l.size() && l[q2 + 1] == '[') {
        const int rp = std::atoi(std::string(l.substr(q2 + 2)).c_str());
        if (rp <= 0) return error(no, "bad remote port");
        d.remote_port = static_cast<unsigned>(rp);
      }
      if (decls_[index].count(port))
        return error(no, "port " + std::to_string(port) + " listed twice");
      decls_[index][port] = std::move(d);
    }
    return {};
  }

  // Every cable must be listed from both ends with matching ports (ibsim connect_ports).
  Status connect() {
    for (std::uint32_t a = 0; a < decls_.size(); ++a) {
      for (const auto& [port, d] : decls_[a]) {
        const auto it = ids_.find(d.remote);
        if (it == ids_.end()) return error(d.line, "unknown remote node \"" + d.remote + "\"");
        const std::uint32_t b = it->second;
        if (d.remote_port > fabric_.nodes[b].num_ports)
          return error(d.line, "remote port " + std::to_string(d.remote_port) + " of \"" +
                                   d.remote + "\" does not exist");
        const auto back = decls_[b].find(d.remote_port);
        if (back == decls_[b].end() || back->second.remote != fabric_.nodes[a].id ||
            back->second.remote_port != port)
          return error(d.line, "remote port " + std::to_string(d.remote_port) + " in node \"" +
                                   d.remote + "\" is not connected to node \"" +
                                   fabric_.nodes[a].id + "\" port " + std::to_string(port));
        const PortRef here{a, static_cast<std::uint8_t>(port)};
        const PortRef there{b, static_cast<std::uint8_t>(d.remote_port)};
        if (std::pair(a, port) < std::pair(b, d.remote_port))
          fabric_.cables.push_back({here, there});
      }
    }
    return {};
  }

  std::string_view source_;
  std::vector<std::string_view> lines_;
  std::size_t next_ = 0;
  Fabric fabric_;
  std::map<std::string, std::uint32_t> ids_;
  std::vector<std::map<unsigned, PortDecl>> decls_;  // per node: port -> declaration
  GuidCounter switch_guid_{kIbsimFirstSwitchGuid, kIbsimFirstSwitchGuid};
  GuidCounter ca_guid_{kIbsimFirstCaGuid, kIbsimFirstCaGuid};
};

const char* keyword(NodeType t) {
  switch (t) {
    case NodeType::kSwitch:
      return "Switch";
    case NodeType::kCa:
      return "Hca";
    case NodeType::kRouter:
      return "Rt";
  }
  return "?";
}

}  // namespace

Result<Fabric> parse_net(std::string_view text, std::string_view source_name) {
  return Parser(text, source_name).run();
}

Result<Fabric> load_net_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return fail(kNetFileError, path + ": cannot open");
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  return parse_net(text, path);
}

std::string write_net(const Fabric& fabric) {
  // Cables by (node, port) so each record lists its ports in order.
  std::vector<std::map<unsigned, PortRef>> peers(fabric.nodes.size());
  for (const Cable& c : fabric.cables) {
    peers[c.a.node][c.a.port] = c.b;
    peers[c.b.node][c.b.port] = c.a;
  }
  std::ostringstream out;
  std::uint64_t next_switch = kIbsimFirstSwitchGuid;
  std::uint64_t next_ca = kIbsimFirstCaGuid;
  for (std::uint32_t i = 0; i < fabric.nodes.size(); ++i) {
    const Node& n = fabric.nodes[i];
    const bool sw = n.type == NodeType::kSwitch;
    std::uint64_t& next = sw ? next_switch : next_ca;
    if (n.node_guid != next)
      out << (sw ? "switchguid=0x" : "caguid=0x") << std::hex << n.node_guid << std::dec << "\n";
    next = n.node_guid + (sw ? 1U : n.num_ports + 1U);
    out << keyword(n.type) << " " << unsigned{n.num_ports} << " \"" << n.id << "\"";
    if (n.description != n.id) out << " # \"" << n.description << "\"";
    if (sw && n.lid) out << " lid " << *n.lid;
    if (sw && n.lmc) out << " lmc " << unsigned{*n.lmc};
    out << "\n";
    for (const auto& [port, peer] : peers[i])
      out << "[" << port << "] \"" << fabric.nodes[peer.node].id << "\"[" << unsigned{peer.port}
          << "]\n";
    out << "\n";
  }
  return out.str();
}

}  // namespace ibsm::testsupport
