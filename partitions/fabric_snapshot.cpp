#include "partitions/fabric_snapshot.hpp"

#include <cstdio>
#include <sstream>

#include "partitions/c_number.hpp"
#include "partitions/errors.hpp"
#include "partitions/pkey_table.hpp"

namespace ibsm::partitions {
namespace {

std::string hex(std::uint64_t v, int width) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%0*llx", width, static_cast<unsigned long long>(v));
  return buf;
}

const char* type_name(NodeType t) {
  switch (t) {
    case NodeType::kCa:
      return "ca";
    case NodeType::kSwitch:
      return "switch";
    case NodeType::kRouter:
      return "router";
  }
  return "?";
}

Diagnostic bad(int line, std::string msg, std::string expected = "") {
  return {Severity::kError, kSnapshotSyntax, line, 0, std::move(msg), std::move(expected)};
}

}  // namespace

std::string write_fabric_snapshot(const FabricSnapshot& s) {
  std::string out = "ibsm-fabric-snapshot " + std::to_string(kFabricSnapshotVersion) + "\n";
  out += "# port <node_guid> <port_num> <ca|switch|router> <port_guid> [field=value]...\n";
  for (std::size_t i = 0; i < s.fabric.ports.size(); ++i) {
    const FabricPort& p = s.fabric.ports[i];
    out += "port " + hex(p.node_guid, 16) + " " + std::to_string(p.port_num) + " " +
           type_name(p.node_type) + " " + hex(p.port_guid, 16);
    if (p.is_sm_port) out += " sm=1";
    out += " cap=" + std::to_string(p.pkey_capacity);
    std::size_t n = p.pkeys.size();
    while (n > 0 && p.pkeys[n - 1] == 0)
      --n;
    std::string pk;
    for (std::size_t k = 0; k < n; ++k)
      pk += (k ? "," : "") + hex(p.pkeys[k], 4);
    out += " pkeys=" + (pk.empty() ? std::string("-") : pk);
    if (p.peer == FabricPort::Peer::kEndPort) out += " peer=" + hex(p.peer_port_guid, 16);
    if (p.peer == FabricPort::Peer::kSwitch) out += " peer=switch";
    if (!p.is_end_port()) {
      std::string e;
      if (p.enforcement.inbound) e = "in";
      if (p.enforcement.outbound) e += e.empty() ? "out" : ",out";
      out += " enforce=" + (e.empty() ? std::string("-") : e);
    }
    if (i < s.descriptions.size() && !s.descriptions[i].empty())
      out += " desc=" + s.descriptions[i];
    out += "\n";
  }
  return out;
}

Result<FabricSnapshot, Diagnostic> read_fabric_snapshot(std::string_view text) {
  FabricSnapshot s;
  std::istringstream in{std::string(text)};
  std::string line;
  int ln = 0;
  bool header = false;
  while (std::getline(in, line)) {
    ++ln;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string word;
    ls >> word;
    if (!header) {
      int version = 0;
      if (word != "ibsm-fabric-snapshot" || !(ls >> version))
        return fail(bad(ln, "not a fabric snapshot", "'ibsm-fabric-snapshot <version>'"));
      if (version != kFabricSnapshotVersion)
        return fail(Diagnostic{Severity::kError, kSnapshotVersion, ln, 0,
                               "snapshot version " + std::to_string(version) + " is not supported",
                               "version " + std::to_string(kFabricSnapshotVersion)});
      header = true;
      continue;
    }
    if (word != "port") return fail(bad(ln, "unknown line '" + word + "'", "'port ...'"));
    std::string node, num, type, guid;
    if (!(ls >> node >> num >> type >> guid))
      return fail(bad(ln, "incomplete port line", "node GUID, port number, type, port GUID"));
    FabricPort p;
    auto ng = parse_c_number_exact(node), pn = parse_c_number_exact(num),
         pg = parse_c_number_exact(guid);
    if (!ng || !pn || *pn > 254 || !pg) return fail(bad(ln, "bad GUID or port number"));
    p.node_guid = *ng;
    p.port_num = static_cast<std::uint8_t>(*pn);
    p.port_guid = *pg;
    if (type == "ca")
      p.node_type = NodeType::kCa;
    else if (type == "switch")
      p.node_type = NodeType::kSwitch;
    else if (type == "router")
      p.node_type = NodeType::kRouter;
    else
      return fail(bad(ln, "bad node type '" + type + "'", "ca, switch or router"));
    std::string desc;
    std::string field;
    while (ls >> field) {
      const auto eq = field.find('=');
      const std::string key = field.substr(0, eq);
      const std::string val = eq == std::string::npos ? "" : field.substr(eq + 1);
      if (key == "desc") {
        std::string rest;
        std::getline(ls, rest);
        desc = val + rest;
        break;
      }
      if (key == "sm") {
        p.is_sm_port = val == "1";
      } else if (key == "cap") {
        auto c = parse_c_number_exact(val);
        if (!c || *c > 0xffff) return fail(bad(ln, "bad cap '" + val + "'"));
        p.pkey_capacity = static_cast<std::uint16_t>(*c);
      } else if (key == "pkeys") {
        if (val != "-") {
          std::size_t b = 0;
          while (b <= val.size()) {
            std::size_t e = val.find(',', b);
            if (e == std::string::npos) e = val.size();
            auto v = parse_c_number_exact(val.substr(b, e - b));
            if (!v || *v > 0xffff) return fail(bad(ln, "bad P_Key in '" + val + "'"));
            p.pkeys.push_back(static_cast<std::uint16_t>(*v));
            b = e + 1;
          }
        }
      } else if (key == "peer") {
        if (val == "switch") {
          p.peer = FabricPort::Peer::kSwitch;
        } else {
          auto g = parse_c_number_exact(val);
          if (!g) return fail(bad(ln, "bad peer '" + val + "'", "a port GUID or 'switch'"));
          p.peer = FabricPort::Peer::kEndPort;
          p.peer_port_guid = *g;
        }
      } else if (key == "enforce") {
        p.enforcement.inbound = val.find("in") != std::string::npos;
        p.enforcement.outbound = val.find("out") != std::string::npos;
      } else {
        return fail(bad(ln, "unknown field '" + key + "'"));
      }
    }
    const std::size_t blocks = (p.pkey_capacity + kPKeysPerBlock - 1) / kPKeysPerBlock;
    if (p.pkeys.size() < blocks * kPKeysPerBlock) p.pkeys.resize(blocks * kPKeysPerBlock, 0);
    s.fabric.ports.push_back(std::move(p));
    s.descriptions.push_back(desc);
  }
  if (!header) return fail(bad(ln, "empty snapshot", "'ibsm-fabric-snapshot <version>'"));
  return s;
}

}  // namespace ibsm::partitions
