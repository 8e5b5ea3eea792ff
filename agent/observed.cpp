#include "agent/observed.hpp"

#include <algorithm>

#include "agent/errors.hpp"
#include "agent/input_grammar.hpp"
#include "agent/ipoib_rules.hpp"

namespace ibsm::agent {

std::optional<std::uint16_t> PortState::find_pkey(std::uint16_t pkey) const {
  std::optional<std::uint16_t> limited;
  for (const auto& e : pkeys) {
    if (!same_partition(e.value, pkey)) continue;
    if (is_full_member(e.value)) return e.value;
    limited = e.value;
  }
  return limited;
}

const PortState* RdmaDevice::port(int number) const {
  for (const auto& p : ports)
    if (p.number == number) return &p;
  return nullptr;
}

const RdmaDevice* Observed::device(const std::string& name) const {
  for (const auto& d : devices)
    if (d.name == name) return &d;
  return nullptr;
}

const NetDevice* Observed::netdev(const std::string& name) const {
  for (const auto& n : netdevs)
    if (n.name == name) return &n;
  return nullptr;
}

std::pair<const RdmaDevice*, const PortState*> Observed::port_by_guid(std::uint64_t guid) const {
  for (const auto& d : devices)
    for (const auto& p : d.ports)
      if (p.guid == guid) return {&d, &p};
  return {nullptr, nullptr};
}

std::vector<const NetDevice*> Observed::ipoib_on(const PortState& port) const {
  std::vector<const NetDevice*> out;
  for (const auto& n : netdevs)
    if (n.ipoib() && port.guid != 0 && hw_address_guid(n.address) == port.guid) out.push_back(&n);
  std::stable_sort(out.begin(), out.end(), [](const NetDevice* a, const NetDevice* b) {
    return a->parent.empty() && !b->parent.empty();
  });
  return out;
}

std::vector<std::string> Observed::netdevs_on(const RdmaDevice& dev, const PortState& port) const {
  std::vector<std::string> out;
  auto add = [&](const std::string& n) {
    if (!n.empty() && std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  };
  if (port.infiniband()) {
    for (const auto* n : ipoib_on(port))
      add(n->name);
  } else {
    for (const auto& g : port.gids)
      add(g.ndev);
  }
  add(dev.parent);
  return out;
}

void drop_unsafe_names(Observed& o) {
  auto refuse = [&](const std::string& what, const std::string& name) {
    std::string shown;
    for (unsigned char c : name.substr(0, 64))
      shown += c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '?';
    o.refused.push_back(
        Error{kUnsafeObservedName, what + " \"" + shown +
                                       "\" is not a name the agent accepts "
                                       "([A-Za-z0-9_.:-], not . or ..): left alone"});
  };
  std::erase_if(o.devices, [&](RdmaDevice& d) {
    if (!valid_rdma_device_name(d.name)) {
      refuse("RDMA device", d.name);
      return true;
    }
    if (!d.parent.empty() && !valid_ifname(d.parent)) {
      refuse("parent netdev of " + d.name, d.parent);
      d.parent.clear();
    }
    for (auto& p : d.ports)
      for (auto& g : p.gids)
        if (!g.ndev.empty() && !valid_ifname(g.ndev)) {
          refuse("GID netdev of " + d.name, g.ndev);
          g.ndev.clear();
        }
    return false;
  });
  std::erase_if(o.netdevs, [&](const NetDevice& n) {
    if (!valid_ifname(n.name)) {
      refuse("netdev", n.name);
      return true;
    }
    if (!n.parent.empty() && !valid_ifname(n.parent)) {
      refuse("parent of " + n.name, n.parent);
      return true;
    }
    return false;
  });
}

}  // namespace ibsm::agent
