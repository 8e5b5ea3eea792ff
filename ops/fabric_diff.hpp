// Port, link and LID events from two sweeps: the SM keeps a small index of what the
// last published fabric held (state, LID and peer of each port, by GUID and port
// number) and, when the next one is published, compares it with that index. Pure:
// the index and the changes are values, so tests need no SM.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ops/event.hpp"
#include "sa/snapshot.hpp"

namespace ibsm::ops {

struct PortFacts {
  mad::PortState state = mad::PortState::kDown;
  mad::Lid lid = 0;  // end ports and switch port 0
  mad::Guid peer_node = 0;
  mad::PortNum peer_port = 0;
  std::string node_desc;
};
// (node GUID, port number) -> facts
using PortIndex = std::map<std::pair<mad::Guid, mad::PortNum>, PortFacts>;

PortIndex index_ports(const sa::Snapshot& snap);

struct FabricChange {
  EventType type;
  std::vector<EventField> fields;
};
// What changed from `before` to `after`: port_state for every port whose state
// differs (a port that vanished counts as DOWN), link_up / link_down once per link
// (reported from the end with the lower GUID), lid_assigned / lid_changed for LID
// holders. `before` empty (the first sweep) reports nothing: there is no "before".
std::vector<FabricChange> diff_fabric(const PortIndex& before, const PortIndex& after);

}  // namespace ibsm::ops
