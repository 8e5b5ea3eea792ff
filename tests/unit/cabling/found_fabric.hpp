// Test support: a DiscoveredFabric made from a parsed topology file, as the SM would
// have found that fabric (also the fuzz target's). load() reads tests/unit/cabling/data/. Each
// cable's active rate is the file's (4x SDR where it says nothing); every port supports `widths`
// and `speeds`.
#pragma once

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "cabling/discovered.hpp"
#include "cabling/topology.hpp"
#include "cabling/topology_file.hpp"

namespace ibsm::cabling::test {

inline WidthSet widths_up_to_4x() {
  return width_bit(1) | width_bit(4);
}
inline SpeedSet sdr_only() {
  return speed_bit(Speed::kSdr);
}

inline DiscoveredFabric as_found(const IntendedTopology& t, WidthSet widths = widths_up_to_4x(),
                                 SpeedSet speeds = sdr_only()) {
  DiscoveredFabric f;
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    const auto& n = t.nodes[i];
    f.nodes.push_back({n.guid != 0 ? n.guid : 0x900000 + i, n.type, n.name, {}});
  }
  for (const auto& l : t.links) {
    const std::uint8_t width = l.width ? l.width : 4;
    const Speed speed = l.speed != Speed::kUnknown ? l.speed : Speed::kSdr;
    const auto add = [&](IntendedEnd self, IntendedEnd peer) {
      DiscoveredPort p;
      p.num = self.port;
      p.peer_guid = f.nodes[peer.node].guid;
      p.peer_port = peer.port;
      p.width_active = width;
      p.width_supported = p.width_enabled = widths;
      p.speed_active = speed;
      p.speed_supported = p.speed_enabled = speeds;
      f.nodes[self.node].ports.push_back(p);
    };
    add(l.a, l.b);
    add(l.b, l.a);
  }
  return f;
}

#ifdef CABLING_DATA_DIR
inline std::string data_file(const std::string& name) {
  return std::string(CABLING_DATA_DIR) + "/" + name;
}

inline IntendedTopology load(const std::string& name) {
  auto t = load_intended_topology(data_file(name));
  if (!t) throw std::runtime_error(t.error().message);
  return std::move(t).value();
}
#endif

inline DiscoveredNode* find_node(DiscoveredFabric& f, const std::string& name) {
  for (auto& n : f.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

}  // namespace ibsm::cabling::test
