#include "cabling/deviation.hpp"

#include <algorithm>
#include <tuple>

#include "common/json_writer.hpp"
#include "common/text.hpp"

namespace ibsm::cabling {

std::string_view deviation_kind_name(DeviationKind k) {
  switch (k) {
    case DeviationKind::kMissingLink:
      return "missing_link";
    case DeviationKind::kExtraLink:
      return "extra_link";
    case DeviationKind::kWrongPort:
      return "wrong_port";
    case DeviationKind::kWrongNode:
      return "wrong_node";
    case DeviationKind::kMissingNode:
      return "missing_node";
    case DeviationKind::kExtraNode:
      return "extra_node";
    case DeviationKind::kWidthMismatch:
      return "width_mismatch";
    case DeviationKind::kSpeedMismatch:
      return "speed_mismatch";
  }
  return "unknown";
}

void sort_deviations(std::vector<Deviation>& list) {
  const auto key = [](const Deviation& d) {
    return std::tie(d.local.guid, d.local.port, d.kind, d.remote.guid, d.remote.port);
  };
  std::sort(list.begin(), list.end(),
            [&](const Deviation& a, const Deviation& b) { return key(a) < key(b); });
}

std::string deviations_json(std::span<const Deviation> list) {
  JsonWriter w;
  w.reserve(list.size() * 256 + 2);
  w.begin_array();
  for (const auto& d : list) {
    w.begin_object()
        .field("kind", deviation_kind_name(d.kind))
        .field("local_guid", hex_guid(d.local.guid))
        .field("local_port", static_cast<unsigned>(d.local.port))
        .field("local_name", d.local.name)
        .field("remote_guid", hex_guid(d.remote.guid))
        .field("remote_port", static_cast<unsigned>(d.remote.port))
        .field("remote_name", d.remote.name)
        .field("expected", d.expected)
        .field("found", d.found)
        .end_object();
  }
  w.end_array();
  return std::move(w).take();
}

}  // namespace ibsm::cabling
