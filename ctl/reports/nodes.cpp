// Nodes by name: dump_portguid (the port GUIDs of the nodes whose NodeDescription
// matches a pattern) and node_names (the node name map in force).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <spdlog/fmt/fmt.h>

#include "common/json_writer.hpp"
#include "ctl/errors.hpp"
#include "ctl/port_patterns.hpp"
#include "ctl/reports/families.hpp"

namespace ibsm::ctl::reports {

Answer dump_portguid(const Snap& f, const Command& cmd) {
  // RE2 (ctl/port_patterns.hpp): linear time, bounded memory; and a bound on the time
  // the whole request may take, checked every 256 nodes.
  auto patterns = DescriptionPatterns::compile(cmd.patterns);
  if (!patterns) return fail_answer(patterns.error().id, patterns.error().message);
  const auto deadline = std::chrono::steady_clock::now() + kPatternTime;
  std::size_t looked = 0;
  Answer a;
  JsonWriter j;
  j.begin_object().key("port_guids").begin_array();
  std::set<mad::Guid> seen;
  for (const sa::SnapNode& n : f.nodes) {
    if (++looked % 256 == 0 && std::chrono::steady_clock::now() > deadline)
      return fail_answer(kErrPattern,
                         fmt::format("matching took more than {} ms ({} of {} nodes); use fewer "
                                     "or simpler patterns",
                                     kPatternTime.count(), looked, f.nodes.size()));
    if (!patterns->matches(n.description)) continue;
    for (const sa::SnapPort& p : n.ports) {
      if (!p.present || p.guid == 0 || !seen.insert(p.guid).second) continue;
      a.text += hex16(p.guid) + "\n";
      j.str(hex16(p.guid));
    }
  }
  j.end_array().end_object();
  a.json = j.text();
  return a;
}

Answer node_names(const names::NodeNameMap* map) {
  Answer a;
  JsonWriter j;
  const std::string source = map ? map->source() : std::string();
  j.begin_object().field("source", source).field("names", map ? map->size() : 0);
  j.key("entries").begin_array();
  if (source.empty())
    a.text =
        "No node name map in force (node_name_map_name unset and "
        "/etc/opensm/ib-node-name-map absent): nodes go by their NodeDescription\n";
  else
    a.text = fmt::format("Node name map {}: {} names\n", source, map->size());
  if (map) {
    std::vector<std::pair<std::uint64_t, std::string>> sorted(map->entries().begin(),
                                                              map->entries().end());
    std::ranges::sort(sorted);
    for (const auto& [guid, name] : sorted) {
      a.text += fmt::format("   {} \"{}\"\n", hex16(guid), name);
      j.begin_object().field("guid", hex16(guid)).field("name", name).end_object();
    }
    for (const std::string& w : map->warnings())
      a.text += "   warning: " + w + "\n";
  }
  j.end_array().end_object();
  a.json = j.text();
  return a;
}

}  // namespace ibsm::ctl::reports
