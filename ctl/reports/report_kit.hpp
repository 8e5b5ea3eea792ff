// What every read-only report shares: GUIDs as OpenSM prints them, error answers, the
// name a node goes by, and an answer of one value. Internal to ctl/reports/.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/error.hpp"
#include "ctl/reports/reports.hpp"
#include "names/node_name_map.hpp"
#include "ops/ops_snapshot.hpp"
#include "sa/snapshot.hpp"

namespace ibsm::ctl::reports {

using ops::OpsSnapshot;
using Snap = sa::Snapshot;

// "0x0002c903000e0b72": a GUID with its 16 hex digits.
std::string hex16(std::uint64_t g);

Answer fail_answer(ErrorId id, std::string msg);

// IBSM-8009 (kErrNoFabric): no heavy sweep has published a fabric yet.
Answer no_fabric();

// `text`, and a JSON object of one string member `key`.
Answer simple(std::string text, std::string_view key, const std::string& value);

// The name a node goes by (node_name_map_name): names::name_of, the map's name, else
// its NodeDescription, as the SM's logs and dumps show it.
class NodeNamer {
 public:
  explicit NodeNamer(const names::NodeNameMap* map) : map_(map) {}
  std::string operator()(const sa::SnapNode& n) const;

 private:
  const names::NodeNameMap* map_;
};

}  // namespace ibsm::ctl::reports
