// What the agent observes on the host: RDMA devices and ports (as the kernel
// caches what the SM programmed), network interfaces, and routing facts that
// the safety checks need. Plain data, filled by the readers in discovery.hpp.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "common/error.hpp"

#include "agent/sa_mcmember.hpp"

namespace ibsm::agent {

struct PKeyEntry {
  int index = 0;
  std::uint16_t value = 0;  // bit 15 = full member
};

struct GidEntry {
  int index = 0;
  std::string gid;
  std::string type;  // "IB/RoCE v1", "RoCE v2" (gid_attrs/types)
  std::string ndev;  // netdev behind a RoCE GID (gid_attrs/ndevs)
};

struct PortState {
  int number = 0;
  int state_code = 0;      // IBA PortState: 1 down, 2 init, 3 armed, 4 active
  std::string state;       // "ACTIVE"
  std::string phys_state;  // "LinkUp"
  unsigned lid = 0;
  unsigned sm_lid = 0;
  std::string link_layer;  // "InfiniBand" or "Ethernet"
  std::uint64_t guid = 0;
  std::vector<PKeyEntry> pkeys;  // non-empty slots only
  std::vector<GidEntry> gids;    // non-zero GIDs only
  double rate_gbps = 0;          // active rate (sysfs `rate`); 0 = unknown

  bool active() const { return state_code == 4; }
  bool infiniband() const { return link_layer == "InfiniBand" || link_layer == "IB"; }
  // The table entry for `pkey`'s partition, preferring a full-member entry as
  // the kernel's ib_find_pkey does.
  std::optional<std::uint16_t> find_pkey(std::uint16_t pkey) const;
};

struct RdmaDevice {
  std::string name;
  std::string node_type;  // "CA"
  std::uint64_t node_guid = 0;
  std::string parent;  // soft devices (rxe/siw): the netdev they run on
  std::vector<PortState> ports;
  const PortState* port(int number) const;
};

struct NetDevice {
  std::string name;
  int type = 0;  // 32 = ARPHRD_INFINIBAND
  std::string address;
  int mtu = 0;
  std::string operstate;
  // /sys/class/net/<if>/carrier: the kernel answers EINVAL while the link is
  // administratively down, so empty then (and in trees that do not model it).
  std::optional<bool> carrier;
  std::string mode;                   // IPoIB only: datagram/connected
  std::optional<std::uint16_t> pkey;  // IPoIB only
  std::string parent;                 // IPoIB children: the parent's name
  std::string ifalias;
  std::vector<std::string> addresses;  // "10.0.0.5/16", from the kernel (IPoIB netdevs only)
  bool ipoib() const { return type == 32; }
};

// What the SA said about the partitions verify checks (agent/partition_fit.hpp): each
// broadcast group's record and the port's NeighborMTU. Empty where it was not asked or
// did not answer; verify then skips the check.
struct SaFacts {
  std::map<std::tuple<std::string, int, std::uint16_t>, BroadcastGroup> groups;  // P_Key|0x8000
  std::map<std::pair<std::string, int>, int> port_mtu;                           // bytes
};

// A netdev's DCB state as iproute2's dcb reads it (agent/dcb.hpp). Each part is empty
// when it was not read; its `*_unsupported` says why (the NIC driver has no such DCB
// operation, dcb is not installed or too old), which verify reports as skipped.
struct DcbState {
  std::vector<bool> pfc;            // 8 entries: PFC on for priority i
  std::vector<int> prio_tc;         // 8 entries
  std::vector<int> tc_bw;           // 8 entries
  std::vector<std::string> tc_tsa;  // 8 entries: "ets", "strict", ...
  std::map<int, int> dscp_prio;     // DSCP -> priority
  std::vector<std::string> trust;   // apptrust order, most preferred first
  std::string pfc_unsupported, ets_unsupported, app_unsupported, trust_unsupported;
};

// What systemd has loaded for a service, for verify's memlock check.
struct UnitMemlock {
  unsigned main_pid = 0;      // 0: no main process (stopped, or a oneshot like nfs-server)
  std::string limit_memlock;  // LimitMEMLOCK as systemd has it: bytes or "infinity"
};

struct Observed {
  std::vector<RdmaDevice> devices;
  std::vector<NetDevice> netdevs;
  std::set<std::string> default_route_interfaces;
  std::set<std::string> management_interfaces;  // carry the connection the operator is on
  SaFacts sa;
  std::map<std::string, DcbState> dcb;  // netdev -> what dcb read (only where asked)
  // memlock.services: what systemd has loaded for each (ServiceProbe::memlock).
  std::map<std::string, UnitMemlock> unit_memlock;
  // Devices and netdevs left out because their names fail agent/input_grammar.hpp.
  std::vector<Error> refused;
  const RdmaDevice* device(const std::string& name) const;
  const NetDevice* netdev(const std::string& name) const;
  // The port with this GUID, and its device.
  std::pair<const RdmaDevice*, const PortState*> port_by_guid(std::uint64_t guid) const;
  // IPoIB netdevs on a port (parent first, then children), matched by the GUID in their address.
  std::vector<const NetDevice*> ipoib_on(const PortState& port) const;
  // The netdevs behind a port: IPoIB interfaces, RoCE GID netdevs or a soft device's parent.
  std::vector<std::string> netdevs_on(const RdmaDevice& dev, const PortState& port) const;
};

// Leaves out of `o` every RDMA device and netdev whose name (or parent, or GID netdev)
// the agent's grammars refuse, recording each in o.refused (kUnsafeObservedName). Sysfs
// names become paths, argv and rendered lines; the kernel allows names the agent does not.
void drop_unsafe_names(Observed& o);

}  // namespace ibsm::agent
