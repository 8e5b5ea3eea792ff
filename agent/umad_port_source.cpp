#include <endian.h>
#include <infiniband/umad.h>

#include <cstdio>

#include "agent/errors.hpp"
#include "agent/port_source.hpp"

namespace ibsm::agent {

static const char* state_name(unsigned s) {
  static const char* const names[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"};
  return s < 6 ? names[s] : "UNKNOWN";
}

static const char* phys_state_name(unsigned s) {
  static const char* const names[] = {"NOP",
                                      "Sleep",
                                      "Polling",
                                      "Disabled",
                                      "PortConfigurationTraining",
                                      "LinkUp",
                                      "LinkErrorRecovery",
                                      "Phy Test"};
  return s < 8 ? names[s] : "UNKNOWN";
}

static std::string gid_text(std::uint64_t prefix, std::uint64_t guid) {
  char buf[48];
  std::snprintf(
      buf, sizeof buf, "%04x:%04x:%04x:%04x:%04x:%04x:%04x:%04x",
      static_cast<unsigned>(prefix >> 48) & 0xffff, static_cast<unsigned>(prefix >> 32) & 0xffff,
      static_cast<unsigned>(prefix >> 16) & 0xffff, static_cast<unsigned>(prefix) & 0xffff,
      static_cast<unsigned>(guid >> 48) & 0xffff, static_cast<unsigned>(guid >> 32) & 0xffff,
      static_cast<unsigned>(guid >> 16) & 0xffff, static_cast<unsigned>(guid) & 0xffff);
  return buf;
}

Result<std::vector<RdmaDevice>> UmadPortSource::devices() const {
  // umad_get_ca_device_list lists what sysfs has; umad_get_cas_names invents a
  // default name when there is no device at all.
  std::vector<std::string> names;
  umad_device_node* head = umad_get_ca_device_list();
  for (umad_device_node* n = head; n; n = n->next)
    names.emplace_back(n->ca_name);
  umad_free_ca_device_list(head);
  std::vector<RdmaDevice> out;
  for (const auto& name : names) {
    umad_ca_t ca{};
    if (umad_get_ca(name.c_str(), &ca) < 0)
      return fail(kPortQueryFailed, "umad_get_ca " + name + " failed");
    RdmaDevice d;
    d.name = ca.ca_name;
    d.node_type = ca.node_type == 1 ? "CA" : ca.node_type == 2 ? "SWITCH" : "ROUTER";
    d.node_guid = be64toh(ca.node_guid);
    d.parent = trim(extras_.read("/sys/class/infiniband/" + d.name + "/parent").value_or(""));
    for (int pn = 0; pn < UMAD_CA_MAX_PORTS; ++pn) {
      const umad_port_t* up = ca.ports[pn];
      if (!up) continue;
      PortState p;
      p.number = up->portnum;
      p.state_code = static_cast<int>(up->state);
      p.state = state_name(up->state);
      p.phys_state = phys_state_name(up->phys_state);
      p.lid = up->base_lid;
      p.sm_lid = up->sm_lid;
      p.link_layer = up->link_layer;
      if (p.link_layer == "IB") p.link_layer = "InfiniBand";
      p.guid = be64toh(up->port_guid);
      // libibumad reads sysfs `rate` as an integer: "2.5 Gb/sec" (1X SDR) comes back as 2.
      p.rate_gbps = up->rate == 2 ? 2.5 : up->rate;
      for (unsigned k = 0; k < up->pkeys_size; ++k)
        if ((up->pkeys[k] & 0x7fff) != 0) p.pkeys.push_back({static_cast<int>(k), up->pkeys[k]});
      read_gids(extras_, d.name, p);
      if (p.gids.empty()) p.gids.push_back({0, gid_text(be64toh(up->gid_prefix), p.guid), "", ""});
      d.ports.push_back(std::move(p));
    }
    umad_release_ca(&ca);
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace ibsm::agent
