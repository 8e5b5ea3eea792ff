// A GroupMtuSource for unit tests: answers from tables keyed by P_Key (with 0x8000),
// fails the way it is told to, and records every question.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "agent/errors.hpp"
#include "agent/sa_group_source.hpp"

namespace ibsm::agent::testing {

class FakeGroupMtuSource final : public GroupMtuSource {
 public:
  std::map<std::uint16_t, int> groups;  // P_Key -> IB MTU of its broadcast group
  std::map<std::uint16_t, int> rates;   // P_Key -> rate code (default 3: 10 Gb/s)
  int neighbor_mtu = 4096;              // the port's PortInfo.NeighborMTU
  bool reachable = true;                // false: every question times out
  std::vector<std::tuple<std::string, int, std::uint16_t>> asked;

  Result<BroadcastGroup> broadcast_group(const std::string& device, int port,
                                         std::uint16_t pkey) override {
    asked.emplace_back(device, port, pkey);
    if (!reachable) return fail(kGroupMtuNoAnswer, device + ": no answer from the SA (fake)");
    auto it = groups.find(pkey);
    if (it == groups.end())
      return fail(kGroupMtuRejected, device + ": SA status 0x0300 (no records) (fake)");
    auto r = rates.find(pkey);
    return BroadcastGroup{it->second, r == rates.end() ? 3 : r->second};
  }

  Result<int> port_mtu(const std::string& device, int, unsigned) override {
    if (!reachable) return fail(kGroupMtuNoAnswer, device + ": no answer from the SA (fake)");
    return neighbor_mtu;
  }
};

}  // namespace ibsm::agent::testing
