// topology.conf and JSON of the Slurm tree (slurm/render.hpp).
#include "slurm/render.hpp"

#include <spdlog/fmt/fmt.h>

#include "common/json_writer.hpp"
#include "slurm/hostlist.hpp"

namespace ibsm::slurm {

namespace {

std::vector<std::string> child_names(const Topology& t, const TreeSwitch& s) {
  std::vector<std::string> names;
  names.reserve(s.children.size());
  for (const std::uint32_t c : s.children)
    names.push_back(t.switches[c].name);
  return names;
}

}  // namespace

std::string describe(const Options& o) {
  if (o.rails == Rails::kAll)
    return "every port of each host (a host on two leaves draws a Slurm warning)";
  return fmt::format("rail {} of each host", o.rail);
}

std::string topology_conf(const Topology& t, std::string_view how) {
  std::size_t leaves = 0;
  for (const TreeSwitch& s : t.switches)
    leaves += s.children.empty() ? 1 : 0;
  std::string out =
      "# Slurm topology.conf (TopologyPlugin=topology/tree), written by ibsm from the\n"
      "# InfiniBand fabric of its last heavy sweep.\n";
  out += fmt::format("# {} hosts under {} leaf switches, {} switches in all", t.hosts, leaves,
                     t.switches.size());
  if (t.top() != kNoSwitch)
    out += fmt::format("; top: {}{}", t.switches[t.top()].name,
                       t.virtual_top ? " (virtual, over the switches without a parent)" : "");
  out += fmt::format("\n# hosts placed by {}", how);
  if (t.excluded > 0) out += fmt::format("; {} hosts excluded by pattern", t.excluded);
  out += '\n';
  for (const TreeSwitch& s : t.switches) {
    if (s.children.empty())
      out += fmt::format("SwitchName={} Nodes={}\n", s.name, compress_hostlist(s.hosts));
    else
      out +=
          fmt::format("SwitchName={} Switches={}\n", s.name, compress_hostlist(child_names(t, s)));
  }
  if (!t.skipped.empty()) out += fmt::format("# {} host ports left out:\n", t.skipped.size());
  for (std::size_t i = 0; i < t.skipped.size() && i < kMaxSkippedLines; ++i) {
    const Skipped& k = t.skipped[i];
    // The name as the fabric gave it: no newline reaches the file (display text).
    std::string name;
    for (const char c : k.name)
      name += (c == '\n' || c == '\r') ? ' ' : c;
    out += fmt::format("#   \"{}\" 0x{:016x} port {}: {}\n", name, k.guid, k.port, k.reason);
  }
  if (t.skipped.size() > kMaxSkippedLines)
    out += fmt::format("#   and {} more\n", t.skipped.size() - kMaxSkippedLines);
  return out;
}

std::string topology_json(const Topology& t) {
  JsonWriter j;
  j.begin_object();
  j.key("top");
  if (t.top() == kNoSwitch)
    j.null();
  else
    j.str(t.switches[t.top()].name);
  j.field("virtual_top", t.virtual_top).field("hosts", t.hosts).field("excluded", t.excluded);
  j.key("switches").begin_array();
  for (const TreeSwitch& s : t.switches) {
    j.begin_object().field("name", s.name).key("guid");
    if (s.guid == 0)
      j.null();
    else
      j.str(fmt::format("0x{:016x}", s.guid));
    j.field("level", s.level).key("parent");
    if (s.parent == kNoSwitch)
      j.null();
    else
      j.str(t.switches[s.parent].name);
    j.key(s.children.empty() ? "nodes" : "switches").begin_array();
    for (const std::string& h : s.children.empty() ? s.hosts : child_names(t, s))
      j.str(h);
    j.end_array().end_object();
  }
  j.end_array().key("skipped").begin_array();
  for (const Skipped& k : t.skipped)
    j.begin_object()
        .field("name", k.name)
        .field("guid", fmt::format("0x{:016x}", k.guid))
        .field("port", static_cast<unsigned>(k.port))
        .field("reason", k.reason)
        .end_object();
  j.end_array().end_object();
  return j.text();
}

}  // namespace ibsm::slurm
