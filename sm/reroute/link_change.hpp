// What a targeted sweep learns from re-reading the ports of switches that flagged
// PortStateChange, and how it folds that into the last sweep's fabric model.
//
// A targeted sweep handles exactly two kinds of change, both between switches the
// model already knows: an inter-switch link went down, and a link came (back) up
// between two known switch ports that are both free in the model. Anything else (a
// new node, a peer whose GUID or port differs, an end port that changed, a node cut
// off) is not handled here: the caller falls back to a full heavy sweep, which is
// what OpenSM does for every such change (osm_ucast_cache.c invalidates its cache
// for new links and non-leaf losses; its discovery always starts from scratch).
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "sm/fabric/fabric.hpp"

namespace ibsm::sm::reroute {

// A port's PortInfo as just re-read.
struct PortReading {
  NodeIndex node = kNoNode;
  PortNum port = 0;
  mad::PortInfo info;
};

// The node a NodeInfo probe through (node, port) found.
struct ProbeAnswer {
  NodeIndex node = kNoNode;
  PortNum port = 0;
  mad::NodeInfo info;
};

struct LinkChange {
  enum class Kind : std::uint8_t { kDown, kUp };
  Kind kind = Kind::kDown;
  NodeIndex a = kNoNode;
  PortNum pa = 0;
  NodeIndex b = kNoNode;
  PortNum pb = 0;
};

struct ReadingVerdict {
  std::vector<LinkChange> downs;                      // inter-switch links gone
  std::vector<std::pair<NodeIndex, PortNum>> probes;  // up, peer to be identified
  std::optional<std::string> fallback;                // why a full sweep is needed
};

// Compares fresh PortInfo of switch ports with the model (pure). A port whose link
// dropped with a switch behind it is a down link; a port that is up but was down in
// the model, or whose state went back below Armed (a link that bounced), must be
// probed; an end port's change needs the full sweep.
ReadingVerdict classify_readings(const Fabric& model, const std::vector<PortReading>& readings);

// A probe's answer as a link coming up, or the reason it needs a full sweep: the
// peer must be a switch the model knows, on a port that is free in the model (or
// already linked back to the probing port).
std::variant<LinkChange, std::string> classify_probe(const Fabric& model, const ProbeAnswer& a);

// Applies the changes and the readings to `f` (a copy of the model): links removed
// or added on both ends, PortInfo replaced by what was read. Then every node whose
// directed route crossed a removed link gets a new one (breadth-first from the SM's
// node, switches only forwarding, IBA 14.2.2). Returns an error text when some node
// cannot be reached any more (the caller sweeps in full).
std::optional<std::string> apply_link_changes(Fabric& f, const std::vector<LinkChange>& changes,
                                              const std::vector<PortReading>& readings);

// "1 link down (sw0_1 0x... port 19 - sw1_3 0x... port 2)" for the log.
std::string describe_changes(const Fabric& f, const std::vector<LinkChange>& changes);

}  // namespace ibsm::sm::reroute
