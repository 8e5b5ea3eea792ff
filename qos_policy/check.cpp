// The policy check mode (check.hpp).
#include "qos_policy/check.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>

#include "partitions/defaults.hpp"
#include "partitions/diagnostic.hpp"
#include "qos_policy/compile.hpp"
#include "qos_policy/errors.hpp"
#include "qos_policy/fabric_view.hpp"
#include "qos_policy/format.hpp"
#include "qos_policy/parser.hpp"

namespace ibsm::qos_policy {

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t b = 0;
  for (;;) {
    const auto e = s.find(sep, b);
    out.push_back(s.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) return out;
    b = e + 1;
  }
}

std::optional<std::uint64_t> number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 0);
  if (errno != 0 || *end != '\0' || s[0] == '-') return std::nullopt;
  return v;
}

struct Tuple {
  std::uint64_t src = 0, dst = 0;
  MatchQuery q;
  std::string text;
};

std::string guid_text(std::uint64_t g) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(g));
  return buf;
}

}  // namespace

int run_check(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  auto usage = [&](const std::string& why) {
    err << "ibsm: " << format_error_id(kPolicyCheckUsage) << ": " << why
        << "\nusage: ibsm --check-qos-policy FILE [--partitions FILE] "
           "[--port GUID[,type=ca|switch|router][,desc=TEXT][,num=N][,sm]]... "
           "[--match SRC,DST[,service-id=N][,pkey=N][,qos-class=N]]...\n";
    return 2;
  };
  if (args.empty()) return usage("no policy file given");
  const std::string file = args[0];
  std::string partitions_file;
  FabricView view;
  std::map<std::uint64_t, std::size_t> port_index;
  std::vector<Tuple> tuples;
  auto port = [&](std::uint64_t guid) {
    auto [it, fresh] = port_index.emplace(guid, view.ports.size());
    if (fresh) {
      FabricPort p;
      p.guid = guid;
      p.port_nums = {1};
      view.ports.push_back(p);
    }
    return it->second;
  };
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (i + 1 >= args.size()) return usage("option " + a + " needs a value");
    const std::string& v = args[++i];
    if (a == "--partitions") {
      partitions_file = v;
    } else if (a == "--port") {
      const auto parts = split(v, ',');
      const auto guid = number(parts[0]);
      if (!guid) return usage("--port " + v + ": '" + parts[0] + "' is not a port GUID");
      FabricPort& p = view.ports[port(*guid)];
      for (std::size_t k = 1; k < parts.size(); ++k) {
        const std::string& f = parts[k];
        if (f == "sm") {
          p.is_sm_port = true;
        } else if (f == "type=ca") {
          p.node_type = kTypeCa;
        } else if (f == "type=switch") {
          p.node_type = kTypeSwitch;
          p.port_nums.clear();
          for (std::uint8_t n = 0; n < 128; ++n)
            p.port_nums.push_back(n);
        } else if (f == "type=router") {
          p.node_type = kTypeRouter;
        } else if (f.rfind("desc=", 0) == 0) {
          p.node_desc = f.substr(5);
        } else if (f.rfind("num=", 0) == 0 && number(f.substr(4)) && *number(f.substr(4)) < 256) {
          p.port_nums = {static_cast<std::uint8_t>(*number(f.substr(4)))};
        } else {
          return usage("--port " + v + ": unknown field '" + f + "'");
        }
      }
    } else if (a == "--match") {
      const auto parts = split(v, ',');
      if (parts.size() < 2) return usage("--match " + v + ": needs SRC,DST");
      const auto s = number(parts[0]), d = number(parts[1]);
      if (!s || !d) return usage("--match " + v + ": SRC and DST are port GUIDs");
      Tuple t;
      t.src = *s;
      t.dst = *d;
      t.text = v;
      for (std::size_t k = 2; k < parts.size(); ++k) {
        const auto eq = parts[k].find('=');
        if (eq == std::string::npos)
          return usage("--match " + v + ": '" + parts[k] + "' is not key=number");
        const std::optional<std::uint64_t> n = number(parts[k].substr(eq + 1));
        const std::string key = parts[k].substr(0, eq);
        if (!n.has_value()) return usage("--match " + v + ": '" + parts[k] + "' is not key=number");
        if (key == "service-id") {
          t.q.service_id = *n;
        } else if (key == "pkey" && *n <= 0xffff) {
          t.q.pkey = static_cast<std::uint16_t>(*n);
        } else if (key == "qos-class" && *n <= 0xfff) {
          t.q.qos_class = static_cast<std::uint16_t>(*n);
        } else {
          return usage("--match " + v + ": unknown or out-of-range '" + parts[k] + "'");
        }
      }
      port(t.src);
      port(t.dst);
      tuples.push_back(std::move(t));
    } else {
      return usage("unknown option " + a);
    }
  }

  auto parsed = load_policy_file(file);
  if (!parsed) {
    err << "ibsm: " << format_error(parsed.error(), file) << "\n";
    return 1;
  }
  auto policy = std::make_shared<const Policy>(std::move(*parsed));

  if (!partitions_file.empty()) {
    auto loaded = partitions::load_partitions_file(partitions_file);
    if (!loaded.config) {
      for (const auto& d : loaded.diagnostics)
        err << "ibsm: " << partitions::format_diagnostic(d, partitions_file) << "\n";
      return 2;
    }
    partitions::ResolveOptions ro;
    ro.qos = true;
    const auto resolved = partitions::resolve(*loaded.config, ro);
    partitions::Fabric pf;
    for (const FabricPort& p : view.ports) {
      partitions::FabricPort q;
      q.port_guid = p.guid;
      q.node_guid = p.guid;
      q.node_type = p.node_type == kTypeSwitch   ? partitions::NodeType::kSwitch
                    : p.node_type == kTypeRouter ? partitions::NodeType::kRouter
                                                 : partitions::NodeType::kCa;
      q.port_num = p.node_type == kTypeSwitch ? 0 : 1;
      q.is_sm_port = p.is_sm_port;
      q.pkey_capacity = 128;
      pf.ports.push_back(q);
    }
    add_partitions(view, resolved, partitions::compute_membership(resolved, pf));
  }

  std::vector<CompileNote> notes;
  auto compiled = compile(policy, view, notes);
  for (const CompileNote& n : notes) {
    (n.error ? err : out) << (n.error ? "ibsm: " : "warning: ") << format_error_id(ErrorId{n.id})
                          << ": " << file << ":" << n.pos.line << ":" << n.pos.column << ": "
                          << n.message << "\n";
  }
  if (!compiled) return 1;

  const Policy& p = *policy;
  std::size_t from_ulps = 0;
  for (const MatchRule& r : p.rules)
    from_ulps += r.ulp.empty() ? 0 : 1;
  out << "# QoS policy " << file << ": " << p.groups.size() << " port groups, " << p.levels.size()
      << " qos-levels, " << p.rules.size() << " match rules (" << from_ulps
      << " from qos-ulps), default level '" << p.levels[p.default_level].name << "'\n";
  out << format_policy(p);
  if (!tuples.empty()) out << "\n# matches\n";
  for (const Tuple& t : tuples) {
    const auto s = static_cast<std::uint32_t>(port_index.at(t.src));
    const auto d = static_cast<std::uint32_t>(port_index.at(t.dst));
    std::string groups_s, groups_d;
    for (std::size_t g = 0; g < p.groups.size(); ++g) {
      if (compiled->in_group(s, g)) groups_s += (groups_s.empty() ? "" : ",") + p.groups[g].name;
      if (compiled->in_group(d, g)) groups_d += (groups_d.empty() ? "" : ",") + p.groups[g].name;
    }
    const std::uint32_t r = compiled->match_rule(s, d, t.q);
    out << "match " << guid_text(t.src) << " [" << groups_s << "] -> " << guid_text(t.dst) << " ["
        << groups_d << "]";
    if (t.q.service_id) out << " service-id " << guid_text(*t.q.service_id);
    if (t.q.pkey) out << " pkey " << format_ranges({{*t.q.pkey, *t.q.pkey}}, true);
    if (t.q.qos_class) out << " qos-class " << *t.q.qos_class;
    out << ": "
        << (r == CompiledPolicy::kNoRule ? std::string("no rule, default level")
                                         : describe_rule(p, r))
        << " -> " << describe_level(compiled->match(s, d, t.q)) << "\n";
  }
  return 0;
}

}  // namespace ibsm::qos_policy
