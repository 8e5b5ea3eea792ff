#include "partitions/planner.hpp"

#include <cstdio>

#include "partitions/errors.hpp"

namespace ibsm::partitions {
namespace {

std::string port_name(const FabricPort& p) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "node 0x%016llx port %u",
                static_cast<unsigned long long>(p.node_guid), p.port_num);
  return buf;
}

Enforcement wanted_bits(PartEnforce e) {
  switch (e) {
    case PartEnforce::kBoth:
      return {true, true};
    case PartEnforce::kIn:
      return {true, false};
    case PartEnforce::kOut:
      return {false, true};
    case PartEnforce::kOff:
      break;
  }
  return {};
}

}  // namespace

std::vector<std::uint16_t> wanted_pkeys(const PortMembership& m) {
  std::vector<std::uint16_t> w;
  for (const auto& [pkey, st] : m.pkeys) {
    if (st.limited) w.push_back(pkey);
    if (st.full) w.push_back(static_cast<std::uint16_t>(pkey | 0x8000));
  }
  return opensm_pkey_order(std::move(w));
}

const PortPlan* FabricPlan::find(std::uint64_t node_guid, std::uint8_t port_num) const {
  for (const auto& p : ports)
    if (p.node_guid == node_guid && p.port_num == port_num) return &p;
  return nullptr;
}

FabricPlan plan_pkeys(const ResolvedConfig& config, const Fabric& fabric,
                      const PlannerOptions& options, const PlannerState& previous) {
  FabricPlan plan;
  plan.membership =
      compute_membership(config, fabric, {options.allow_both_pkeys, options.sm_port_always_full});
  plan.diagnostics = plan.membership.diagnostics;
  plan.next_state = previous;

  std::map<std::uint64_t, std::pair<std::vector<std::uint16_t>, std::size_t>> end_tables;
  for (const FabricPort& p : fabric.ports) {
    if (!p.is_end_port()) continue;
    PortPlan pp{p.node_guid, p.port_guid, p.port_num, false, {}, {}, {}, {}};
    TableRequest req;
    auto& history = plan.next_state.history[{p.node_guid, p.port_num}];
    if (options.keep_pkey_indexes)
      req.current = p.pkeys;
    else
      history.clear();
    req.capacity = p.pkey_capacity;
    const PortMembership& m = plan.membership.ports[p.port_guid];
    req.wanted = wanted_pkeys(m);
    req.indx0_pkey = m.indx0_pkey;
    req.allow_both_pkeys = options.allow_both_pkeys;
    TableResult tr = plan_table(req, history);
    for (std::uint16_t d : tr.dropped) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "0x%04x", d);
      plan.diagnostics.push_back(
          {Severity::kWarning, kPKeyTableFull, 0, 0,
           std::string("P_Key ") + buf + " does not fit in the table of " + port_name(p), ""});
    }
    pp.blocks_to_send = changed_blocks(p.pkeys, tr.table, tr.table.size() / kPKeysPerBlock);
    pp.dropped = tr.dropped;
    end_tables[p.port_guid] = {tr.table, tr.used_blocks};
    pp.table = std::move(tr.table);
    plan.ports.push_back(std::move(pp));
  }

  for (const FabricPort& p : fabric.ports) {
    if (p.is_end_port()) continue;
    PortPlan pp{p.node_guid, p.port_guid, p.port_num, true, {}, {}, {}, {}};
    if (p.peer == FabricPort::Peer::kSwitch) {
      if (!p.enforcement.inbound && !p.enforcement.outbound) continue;
      pp.set_enforcement = Enforcement{};
    } else if (p.peer == FabricPort::Peer::kEndPort && p.pkey_capacity > 0) {
      auto it = end_tables.find(p.peer_port_guid);
      if (it == end_tables.end()) continue;
      Enforcement bits = wanted_bits(options.part_enforce);
      if (options.part_enforce != PartEnforce::kOff) {
        std::vector<std::uint16_t> packed = peer_table(it->second.first, it->second.second);
        const std::size_t max_blocks = (p.pkey_capacity + kPKeysPerBlock - 1) / kPKeysPerBlock;
        if (packed.size() > p.pkey_capacity) {
          plan.diagnostics.push_back({Severity::kWarning, kEnforcementTableTooSmall, 0, 0,
                                      port_name(p) + " has " + std::to_string(p.pkey_capacity) +
                                          " enforcement entries for " +
                                          std::to_string(packed.size()) +
                                          " P_Keys; enforcement turned off",
                                      ""});
          bits = {};
          if (packed.size() > max_blocks * kPKeysPerBlock)
            packed.resize(max_blocks * kPKeysPerBlock);
        }
        const std::size_t blocks = (packed.size() + kPKeysPerBlock - 1) / kPKeysPerBlock;
        packed.resize(blocks * kPKeysPerBlock, 0);
        pp.blocks_to_send = changed_blocks(p.pkeys, packed, blocks);
        pp.table = std::move(packed);
      }
      if (!(bits == p.enforcement)) pp.set_enforcement = bits;
    } else {
      continue;
    }
    plan.ports.push_back(std::move(pp));
  }
  return plan;
}

}  // namespace ibsm::partitions
