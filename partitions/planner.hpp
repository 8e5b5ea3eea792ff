// The P_Key planner: resolved configuration + fabric -> the P_Key table every port
// should have, the blocks that differ from what the port has (the only ones the SM
// sends), and the partition enforcement bits of switch ports (osm_pkey_mgr.c).
// Pure: no I/O; the per-port index history is passed in and handed back.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "partitions/diagnostic.hpp"
#include "partitions/fabric.hpp"
#include "partitions/membership.hpp"
#include "partitions/pkey_table.hpp"
#include "partitions/resolve.hpp"

namespace ibsm::partitions {

enum class PartEnforce { kBoth, kIn, kOut, kOff };  // opensm.conf part_enforce

struct PlannerOptions {
  bool allow_both_pkeys = false;
  PartEnforce part_enforce = PartEnforce::kBoth;
  bool sm_port_always_full = true;
  // opensm.conf keep_pkey_indexes. FALSE: every end port's table is laid out afresh
  // each sweep, as if it were empty and had no index history (osm_pkey_mgr.c clears
  // the port's keys and accum_pkeys): P_Keys are packed from index 0/1 in OpenSM's
  // order, so removed partitions leave no holes and indexes may move.
  bool keep_pkey_indexes = true;
};

using PortKey = std::pair<std::uint64_t, std::uint8_t>;  // node GUID, port number

struct PlannerState {
  std::map<PortKey, PKeyIndexHistory> history;
};

struct PortPlan {
  std::uint64_t node_guid = 0;
  std::uint64_t port_guid = 0;
  std::uint8_t port_num = 0;
  bool switch_external = false;
  std::vector<std::uint16_t> table;            // wanted table (whole blocks)
  std::vector<std::uint16_t> blocks_to_send;   // block indexes to Set(P_KeyTable)
  std::optional<Enforcement> set_enforcement;  // new PortInfo bits, if they change
  std::vector<std::uint16_t> dropped;          // P_Keys that did not fit
};

struct FabricPlan {
  std::vector<PortPlan> ports;  // fabric order
  MembershipResult membership;
  std::vector<Diagnostic> diagnostics;
  PlannerState next_state;

  const PortPlan* find(std::uint64_t node_guid, std::uint8_t port_num) const;
};

FabricPlan plan_pkeys(const ResolvedConfig& config, const Fabric& fabric,
                      const PlannerOptions& options = {}, const PlannerState& previous = {});

// The P_Keys (with membership bit) an end port should hold, in OpenSM's order.
std::vector<std::uint16_t> wanted_pkeys(const PortMembership& m);

}  // namespace ibsm::partitions
