// port_search_ordering_file (-O; OpenSM's older name: dimn_ports_file): per switch, the
// order in which dor tries its ports when it looks for a minimal one. Lines
// "<switch GUID> <port> <port> ..."; ports not listed follow in increasing order.
#pragma once

#include <cstdint>
#include <vector>

#include "common/result.hpp"
#include "routing/engine.hpp"

namespace ibsm::routing::torus {

// One switch's listed ports, as written (validated against the fabric later).
struct PortOrderLine {
  std::uint64_t guid = 0;
  std::vector<unsigned> ports;
  unsigned line = 0;
};

// Parses the file's text. Blank lines and lines starting with '#' are skipped; text after
// '#' on a line is a comment (as OpenSM's parse_node_map). A line whose GUID or a port does
// not parse fails with kErrPortOrderFile naming file and line.
Result<std::vector<PortOrderLine>> parse_port_order(const EngineConfig::Text& file);

// The search order of every switch of `topo` (ports 1..num_ports, each once). Lines for
// unknown GUIDs, repeated switches, or with a port 0, above num_ports or repeated are
// ignored with a kErrPortOrderIgnored warning appended to `warnings`, as OpenSM ignores
// them (osm_ucast_mgr.c set_search_ordering_ports).
std::vector<std::vector<PortNum>> port_orders(const Topology& topo,
                                              const std::vector<PortOrderLine>& lines,
                                              const std::string& file_name,
                                              std::vector<Error>& warnings);

}  // namespace ibsm::routing::torus
