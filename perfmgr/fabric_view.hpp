// What the PerfMgr monitors: the nodes and ports of the SM's last fabric, handed
// over after every heavy sweep as an immutable value. The PerfMgr never reads the
// SM's model itself, so it needs no lock and cannot hold up a sweep.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mad/types.hpp"

namespace ibsm::perfmgr {

struct ViewPort {
  bool valid = false;  // the port exists and was read by the SM's last sweep
  mad::Lid lid = 0;    // where its PMA answers: a CA port's LID, a switch's port 0 LID
  bool remote_valid = false;
  mad::Guid remote_guid = 0;
  std::string remote_name;
  mad::PortNum remote_port = 0;
  bool remote_is_switch = false;
  // PortInfo's active width and speed codes (IBA 14.2.5.6), for the link gauges.
  std::uint8_t link_width_active = 0;
  std::uint8_t link_speed_active = 0;
  std::uint8_t link_speed_ext_active = 0;
};

struct ViewNode {
  mad::Guid guid = 0;
  std::string name;  // node_name_map name, else the NodeDescription
  bool is_switch = false;
  bool esp0 = false;            // switch with enhanced port 0: port 0 is monitored too
  std::vector<ViewPort> ports;  // index = port number, 0..NumPorts
};

struct FabricView {
  std::vector<ViewNode> nodes;
  // The SM port's P_Key table, to find the index of a redirection's P_Key.
  std::vector<std::uint16_t> local_pkeys;
};

using FabricViewPtr = std::shared_ptr<const FabricView>;

}  // namespace ibsm::perfmgr
