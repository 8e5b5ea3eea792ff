// routes_from_dump (lft_dump_reader.hpp): a parsed LFT dump checked against the fabric
// and turned into Routes.
#include <optional>
#include <string>
#include <unordered_map>

#include "routing/errors.hpp"
#include "routing/file/dump_text.hpp"
#include "routing/file/lft_dump_reader.hpp"
#include "routing/lid_owners.hpp"

namespace ibsm::routing {

using dump_text::hex_guid;

namespace {

// Why `port` cannot carry `lid` on `sw`, or nothing if it can. Port 0 is the switch's
// management port: only its own LIDs may end there; a packet for any other LID would be
// dropped by the switch's agents, a black hole.
std::optional<std::string> bad_port(const Switch& sw, const std::vector<bool>& up, Lid lid,
                                    PortNum port) {
  if (port == 0) {
    const unsigned own = 1U << sw.lmc;
    if (lid >= sw.lid && lid < sw.lid + own) return std::nullopt;
    return "sends LID " + std::to_string(lid) + " to port 0 (the switch itself)";
  }
  if (port > sw.num_ports)
    return "sends LID " + std::to_string(lid) + " to port " + std::to_string(port) +
           ", but the switch has " + std::to_string(sw.num_ports) + " ports";
  if (!up[port])
    return "sends LID " + std::to_string(lid) + " to port " + std::to_string(port) +
           ", whose link is down";
  return std::nullopt;
}

}  // namespace

Result<Routes> routes_from_dump(const Topology& topo, const LftDump& dump, std::string_view path) {
  std::unordered_map<std::uint64_t, std::size_t> in_dump;
  for (std::size_t i = 0; i < dump.switches.size(); ++i)
    in_dump.emplace(dump.switches[i].guid, i);

  std::size_t matched = 0;
  std::string missing;
  std::size_t n_missing = 0;
  for (const Switch& sw : topo.switches) {
    if (in_dump.contains(sw.guid)) {
      ++matched;
    } else if (n_missing++ < 4) {
      missing += (missing.empty() ? "" : ", ") + hex_guid(sw.guid) + " ('" + sw.description + "')";
    }
  }
  if (matched == 0 && !topo.switches.empty())
    return fail(kErrLftDumpMismatch, std::string(path) +
                                         ": no switch of the dump is in this fabric (a dump of "
                                         "another fabric?)");
  if (n_missing > 0)
    return fail(kErrLftDumpMismatch, std::string(path) + ": " + std::to_string(n_missing) +
                                         " switch(es) of the fabric have no LFT in the dump: " +
                                         missing + (n_missing > 4 ? ", ..." : ""));

  const Lid top = max_lid(topo);
  Routes routes;
  routes.lfts.assign(topo.switches.size(), Lft(std::size_t{top} + 1, kNoPath));
  std::size_t beyond_top = 0;
  for (std::size_t si = 0; si < topo.switches.size(); ++si) {
    const Switch& sw = topo.switches[si];
    std::vector<bool> up(std::size_t{sw.num_ports} + 1, false);
    for (const Link& l : sw.links)
      if (l.port <= sw.num_ports) up[l.port] = true;
    const LftDumpSwitch& from = dump.switches[in_dump.at(sw.guid)];
    for (const auto& [lid, port] : from.entries) {
      // ibroute -a lists unused entries with port 255; they mean "no route".
      if (port == kNoPath) continue;
      if (lid > top) {
        ++beyond_top;
        continue;
      }
      if (auto why = bad_port(sw, up, lid, port))
        return fail(kErrLftDumpMismatch, std::string(path) + ": switch " + hex_guid(sw.guid) +
                                             " ('" + sw.description + "') " + *why);
      routes.lfts[si][lid] = port;
    }
  }

  const std::size_t extra = dump.switches.size() - matched;
  if (extra > 0 || beyond_top > 0)
    routes.warnings.push_back(
        {kErrLftDumpSkipped, std::string(path) + ": skipped " + std::to_string(extra) +
                                 " switch block(s) of switches not in the fabric and " +
                                 std::to_string(beyond_top) +
                                 " entries above the fabric's top LID " + std::to_string(top)});

  // LIDs of the fabric a switch has no entry for: the dump predates those ports.
  const std::vector<LidOwner> owners = lid_owners(topo);
  std::size_t holes = 0;
  std::string first_hole;
  // LIDs a switch could route: those of switches and of end ports that hang off one.
  auto routable = [&](const LidOwner& o) {
    return o.kind == LidOwner::Kind::kSwitch ||
           (o.kind == LidOwner::Kind::kEndPort && topo.end_ports[o.index].sw != UINT32_MAX);
  };
  for (std::size_t si = 0; si < topo.switches.size(); ++si)
    for (std::size_t lid = 1; lid < owners.size() && lid < routes.lfts[si].size(); ++lid)
      if (routable(owners[lid]) && routes.lfts[si][lid] == kNoPath) {
        if (holes++ == 0)
          first_hole = "switch " + hex_guid(topo.switches[si].guid) + " LID " + std::to_string(lid);
      }
  if (holes > 0)
    routes.warnings.push_back(
        {kErrLftDumpIncomplete,
         std::string(path) + ": " + std::to_string(holes) +
             " (switch, LID) pairs of the fabric have no entry, first: " + first_hole});
  return routes;
}

}  // namespace ibsm::routing
