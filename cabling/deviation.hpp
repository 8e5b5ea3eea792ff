// One difference between the cabling a file intends and the fabric found, or a link
// running below what both its ends support. Each is one entry with both ends, however
// many ends a cable has.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm::cabling {

enum class DeviationKind : std::uint8_t {
  kMissingLink,    // the file's cable is not there (both ends present, ports free or down)
  kExtraLink,      // a cable the file does not have
  kWrongPort,      // the cable joins the right nodes, but a port is not the file's
  kWrongNode,      // one end is right, the other is on another node than the file's
  kMissingNode,    // a node of the file was not found (its cables are not listed again)
  kExtraNode,      // a node found that the file does not have (nor its cables)
  kWidthMismatch,  // active width is not the file's, or below the best both ends support
  kSpeedMismatch,  // the same for the lane speed
};
std::string_view deviation_kind_name(DeviationKind k);  // "missing_link", ...

struct DeviationEnd {
  std::uint64_t guid = 0;
  std::uint8_t port = 0;
  std::string name;
  auto operator<=>(const DeviationEnd&) const = default;
};

// local/remote, per kind:
//   missing_link, extra_link, width/speed_mismatch: the cable's ends, the lower GUID first;
//   wrong_port: local is the end in the wrong port (where it is now), remote the other;
//   wrong_node: local is the end that is right, remote where the cable goes now;
//   missing_node, extra_node: local is the node (port 0), remote its first neighbour.
// expected/found: what the file says and what is there, in words ("4x", "\"leaf2\"[1]").
struct Deviation {
  DeviationKind kind = DeviationKind::kMissingLink;
  DeviationEnd local, remote;
  std::string expected, found;
  bool operator==(const Deviation&) const = default;
};

// By local GUID, local port, kind, remote GUID, remote port: the order every list has.
void sort_deviations(std::vector<Deviation>& list);

// [{"kind","local_guid","local_port","local_name","remote_guid","remote_port",
//   "remote_name","expected","found"}, ...], GUIDs as "0x" + 16 hex digits, one line.
std::string deviations_json(std::span<const Deviation> list);

}  // namespace ibsm::cabling
