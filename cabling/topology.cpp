#include "cabling/topology.hpp"

#include <spdlog/fmt/fmt.h>

#include "cabling/errors.hpp"

namespace ibsm::cabling {

std::string_view node_type_name(NodeType t) {
  switch (t) {
    case NodeType::kSwitch:
      return "switch";
    case NodeType::kCa:
      return "ca";
    case NodeType::kRouter:
      return "router";
    case NodeType::kUnknown:
      break;
  }
  return "node";
}

std::string where(std::string_view file, int line) {
  return fmt::format("{}:{}", file, line);
}

Result<std::uint32_t> TopologyBuilder::node(std::uint64_t guid, std::string_view name,
                                            NodeType type, std::uint8_t num_ports, int line) {
  std::uint32_t* found = nullptr;
  if (guid != 0) {
    if (auto it = by_guid_.find(guid); it != by_guid_.end()) found = &it->second;
  } else if (auto it = by_name_.find(std::string(name)); it != by_name_.end()) {
    found = &it->second;
  }
  if (found == nullptr) {
    const auto index = static_cast<std::uint32_t>(topo_.nodes.size());
    topo_.nodes.push_back({guid, std::string(name), type, num_ports, line});
    if (guid != 0) by_guid_.emplace(guid, index);
    if (!name.empty()) by_name_.emplace(std::string(name), index);  // the first one wins
    return index;
  }
  IntendedNode& n = topo_.nodes[*found];
  const bool type_clash =
      type != NodeType::kUnknown && n.type != NodeType::kUnknown && type != n.type;
  const bool ports_clash = num_ports != 0 && n.num_ports != 0 && num_ports != n.num_ports;
  if (type_clash || ports_clash)
    return fail(
        kErrTopoContradiction,
        fmt::format("{}: node \"{}\" declared as {} with {} ports, but as {} with {} "
                    "ports at line {}",
                    where(topo_.file, line), name.empty() ? n.name : name, node_type_name(type),
                    num_ports, node_type_name(n.type), n.num_ports, n.line));
  if (n.type == NodeType::kUnknown) n.type = type;
  if (n.num_ports == 0) n.num_ports = num_ports;
  if (n.name.empty() && !name.empty()) {
    n.name = std::string(name);
    by_name_.emplace(n.name, *found);
  }
  return *found;
}

const std::uint32_t* TopologyBuilder::find_name(std::string_view name) const {
  const auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? nullptr : &it->second;
}

Status TopologyBuilder::check_port(IntendedEnd e, int line) const {
  const IntendedNode& n = topo_.nodes[e.node];
  if (e.port == 0)
    return fail(kErrTopoBadPort, fmt::format("{}: port 0 of \"{}\" cannot be cabled",
                                             where(topo_.file, line), n.name));
  if (n.num_ports != 0 && e.port > n.num_ports)
    return fail(kErrTopoBadPort,
                fmt::format("{}: port {} of \"{}\", which has {} ports (line {})",
                            where(topo_.file, line), e.port, n.name, n.num_ports, n.line));
  return {};
}

Status TopologyBuilder::link(IntendedEnd a, IntendedEnd b, Rate rate, LinkState state, int line) {
  if (auto s = check_port(a, line); !s) return s;
  if (auto s = check_port(b, line); !s) return s;
  const auto name = [&](IntendedEnd e) {
    const IntendedNode& n = topo_.nodes[e.node];
    return fmt::format("\"{}\"[{}]", n.name.empty() ? fmt::format("{:#x}", n.guid) : n.name,
                       e.port);
  };
  if (a.node == b.node && a.port == b.port)
    return fail(kErrTopoContradiction,
                fmt::format("{}: {} cabled to itself", where(topo_.file, line), name(a)));
  const auto at_a = link_at_.find(end_key(a));
  const auto at_b = link_at_.find(end_key(b));
  if (at_a == link_at_.end() && at_b == link_at_.end()) {
    const auto index = static_cast<std::uint32_t>(topo_.links.size());
    topo_.links.push_back({a, b, rate.width, rate.speed, state, line});
    link_at_.emplace(end_key(a), index);
    link_at_.emplace(end_key(b), index);
    return {};
  }
  // One end is already cabled: the same cable again, or a contradiction.
  const auto index = at_a != link_at_.end() ? at_a->second : at_b->second;
  IntendedLink& l = topo_.links[index];
  const bool same = (end_key(l.a) == end_key(a) && end_key(l.b) == end_key(b)) ||
                    (end_key(l.a) == end_key(b) && end_key(l.b) == end_key(a));
  if (!same) {
    const IntendedEnd busy = at_a != link_at_.end() ? a : b;
    return fail(kErrTopoContradiction,
                fmt::format("{}: {} is already cabled to {} at line {}", where(topo_.file, line),
                            name(busy), name(end_key(l.a) == end_key(busy) ? l.b : l.a), l.line));
  }
  const bool width_clash = rate.width != 0 && l.width != 0 && rate.width != l.width;
  const bool speed_clash =
      rate.speed != Speed::kUnknown && l.speed != Speed::kUnknown && rate.speed != l.speed;
  if (width_clash || speed_clash || state != l.state)
    return fail(kErrTopoContradiction,
                fmt::format("{}: the cable {} - {} is described differently at line {}",
                            where(topo_.file, line), name(a), name(b), l.line));
  if (l.width == 0) l.width = rate.width;
  if (l.speed == Speed::kUnknown) l.speed = rate.speed;
  return {};
}

}  // namespace ibsm::cabling
