#include "routing/port_balance.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "routing/errors.hpp"
#include "routing/guid_file.hpp"

namespace ibsm::routing {
namespace {

// One warning for all GUIDs of a file that name nothing in the fabric (stale files are
// common after hardware swaps; one line per sweep is enough).
void warn_unknown(const char* key, const std::vector<std::uint64_t>& unknown,
                  std::vector<Error>& warnings) {
  if (unknown.empty()) return;
  std::string list;
  for (std::size_t i = 0; i < unknown.size() && i < 4; ++i)
    list += (i ? ", " : "") + hex_guid(unknown[i]);
  if (unknown.size() > 4) list += ", ...";
  warnings.push_back({kErrBalanceGuidUnknown, std::string(key) + ": " +
                                                  std::to_string(unknown.size()) +
                                                  " GUID(s) ignored (not in the fabric, or "
                                                  "repeated): " +
                                                  list});
}

// splitmix64 (Steele, Lea, Flood, OOPSLA 2014): a well-mixed 64-bit hash in a few cycles.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

BalancePlan plan_balance(const Topology& topo, const EngineConfig& config) {
  BalancePlan plan;
  const bool switch_nodes = config.port_profile_switch_nodes;
  for (const EndPort& e : topo.end_ports)
    if (e.sw != UINT32_MAX && e.base_lid != 0)
      plan.targets.push_back({e.sw, e.sw_port, e.base_lid, e.lmc, false, Traffic::kData, false});
  const auto group_of = [](const BalanceTarget& a, const BalanceTarget& b) {
    return a.sw != b.sw ? a.sw < b.sw : a.port < b.port;
  };
  std::vector<BalanceTarget> switches;
  for (std::uint32_t s = 0; s < topo.switches.size(); ++s)
    if (topo.switches[s].lid != 0)
      switches.push_back({s, 0, topo.switches[s].lid, topo.switches[s].lmc, true,
                          switch_nodes ? Traffic::kData : Traffic::kManagement, false});
  std::stable_sort(plan.targets.begin(), plan.targets.end(), group_of);
  plan.targets.insert(plan.targets.end(), switches.begin(), switches.end());

  // GUID -> target: end ports by port GUID, switches by node GUID (= port 0 GUID).
  std::unordered_map<std::uint64_t, std::uint32_t> by_guid;
  {
    std::unordered_map<Lid, std::uint32_t> by_lid;
    for (std::uint32_t i = 0; i < plan.targets.size(); ++i)
      by_lid.emplace(plan.targets[i].base, i);
    for (const EndPort& e : topo.end_ports)
      if (auto it = by_lid.find(e.base_lid);
          it != by_lid.end() && !plan.targets[it->second].is_switch)
        by_guid.emplace(e.port_guid, it->second);
    for (const Switch& sw : topo.switches)
      if (auto it = by_lid.find(sw.lid); it != by_lid.end() && plan.targets[it->second].is_switch)
        by_guid.emplace(sw.guid, it->second);
  }

  std::vector<std::uint64_t> unknown;
  for (std::uint64_t g : config.balance_ignored_guids) {
    auto it = by_guid.find(g);
    if (it == by_guid.end())
      unknown.push_back(g);
    else
      plan.targets[it->second].traffic = Traffic::kIgnored;
  }
  warn_unknown("port_prof_ignore_file", unknown, plan.warnings);

  const bool scatter = config.scatter_seed != 0;
  for (BalanceTarget& t : plan.targets)
    t.scatter = scatter;
  if (!config.routing_order_guids.empty()) {
    unknown.clear();
    std::vector<BalanceTarget> ordered;
    std::unordered_set<std::uint32_t> taken;
    for (std::uint64_t g : config.routing_order_guids) {
      auto it = by_guid.find(g);
      if (it == by_guid.end() || !taken.insert(it->second).second) {
        unknown.push_back(g);
        continue;
      }
      ordered.push_back(plan.targets[it->second]);
      ordered.back().scatter = scatter && !config.routing_order_no_scatter;
    }
    plan.listed = ordered.size();
    for (std::uint32_t i = 0; i < plan.targets.size(); ++i)
      if (!taken.contains(i)) ordered.push_back(plan.targets[i]);
    plan.targets = std::move(ordered);
    warn_unknown("guid_routing_order_file", unknown, plan.warnings);
  }

  plan.sources.assign(topo.switches.size(), 0);
  for (const BalanceTarget& t : plan.targets)
    if (!t.is_switch && t.traffic != Traffic::kIgnored) ++plan.sources[t.sw];
  return plan;
}

std::uint32_t scatter_choice(std::uint32_t seed, Lid lid, std::uint32_t sw, std::uint32_t n) {
  const std::uint64_t h = mix(mix((std::uint64_t{seed} << 32) | lid) ^ sw);
  return static_cast<std::uint32_t>(h % n);
}

Routes routes_from_lid_major(const std::vector<PortNum>& by_lid, std::size_t switches,
                             std::size_t lft_size) {
  Routes routes;
  routes.lfts.assign(switches, Lft(lft_size, kNoPath));
  // Blocks of 64 LIDs keep the reads of one block in cache while every switch's row is
  // written.
  constexpr std::size_t kBlock = 64;
  for (std::size_t l0 = 0; l0 < lft_size; l0 += kBlock)
    for (std::size_t s = 0; s < switches; ++s) {
      PortNum* dst = routes.lfts[s].data();
      const std::size_t l1 = std::min(lft_size, l0 + kBlock);
      for (std::size_t lid = l0; lid < l1; ++lid)
        dst[lid] = by_lid[lid * switches + s];
    }
  return routes;
}

}  // namespace ibsm::routing
