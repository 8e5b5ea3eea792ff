#include "agent/broadcast_mtu.hpp"

#include <map>
#include <set>
#include <tuple>

#include "agent/errors.hpp"
#include "agent/ipoib_rules.hpp"

namespace ibsm::agent {
namespace {

std::string fallback_text() {
  return "; using broadcast_mtu " + std::to_string(kFallbackBroadcastMtu);
}

// The P_Keys (with 0x8000) whose groups the planner may need for this entry.
std::set<std::uint16_t> planned_pkeys(const IpoibInterface& want, const PortState& port,
                                      const Observed& o) {
  std::set<std::uint16_t> keys{kDefaultPKey};
  for (const NetDevice* n : o.ipoib_on(port))
    if (n->pkey) keys.insert(normalize_pkey(*n->pkey));
  for (const PKeyChild& c : want.children)
    if (is_valid_pkey(c.pkey)) keys.insert(normalize_pkey(c.pkey));
  if (want.auto_pkeys)
    for (const PKeyEntry& e : port.pkeys)
      if (is_full_member(e.value)) keys.insert(normalize_pkey(e.value));
  return keys;
}

}  // namespace

std::vector<Error> resolve_broadcast_mtus(NodeConfig& config, const Observed& observed,
                                          GroupMtuSource& sa) {
  std::vector<Error> warnings;
  // One question per (port, P_Key) and run (0: refused, already warned); a port whose
  // SA is silent is not asked again.
  std::map<std::tuple<std::string, int, std::uint16_t>, int> answers;
  std::set<std::pair<std::string, int>> silent;
  for (IpoibInterface& want : config.ipoib) {
    if (want.broadcast_mtu.bytes) continue;
    const RdmaDevice* dev = nullptr;
    const PortState* port = nullptr;
    if (want.port.guid) {
      std::tie(dev, port) = observed.port_by_guid(*want.port.guid);
    } else if ((dev = observed.device(want.port.device))) {
      port = dev->port(want.port.port);
    }
    if (!port || !port->infiniband()) continue;  // the planner reports these
    const auto where = std::make_pair(dev->name, port->number);
    const std::string at = dev->name + "/" + std::to_string(port->number);
    if (!port->active() || port->sm_lid == 0) {
      if (silent.insert(where).second)
        warnings.push_back(
            Error{kGroupMtuNoAnswer,
                  at + ": port is " + port->state + (port->active() ? " without an SM LID" : "") +
                      ", cannot ask the SA for broadcast group MTUs" + fallback_text()});
      continue;
    }
    for (std::uint16_t pkey : planned_pkeys(want, *port, observed)) {
      if (silent.count(where)) break;
      const auto key = std::make_tuple(dev->name, port->number, pkey);
      if (auto it = answers.find(key); it != answers.end()) {
        if (it->second != 0) want.broadcast_mtu.learnt[pkey] = it->second;
        continue;
      }
      auto mtu = sa.broadcast_mtu(dev->name, port->number, pkey);
      if (mtu) {
        answers[key] = *mtu;
        want.broadcast_mtu.learnt[pkey] = *mtu;
        continue;
      }
      if (mtu.error().id == kGroupMtuNoAnswer) {
        silent.insert(where);
        warnings.push_back(Error{kGroupMtuNoAnswer, mtu.error().message + fallback_text() +
                                                        " for every P_Key of " + at});
      } else {
        answers[key] = 0;
        warnings.push_back(Error{mtu.error().id, mtu.error().message + fallback_text() +
                                                     " for P_Key " + format_pkey(pkey)});
      }
    }
  }
  return warnings;
}

}  // namespace ibsm::agent
