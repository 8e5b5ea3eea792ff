// The desired state of one host, as written in its node file (docs/agent.md).
// Plain data: the parser fills it, the planner compares it with what it observes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ibsm::agent {

enum class IpoibMode { kDatagram, kConnected };
// The mode as the kernel's `mode` file and every renderer spell it.
inline const char* ipoib_mode_name(IpoibMode m) {
  return m == IpoibMode::kConnected ? "connected" : "datagram";
}
// An address (with its prefix length) is IPv6 when it has a colon.
inline bool is_ipv6_address(const std::string& a) {
  return a.find(':') != std::string::npos;
}
enum class Membership { kFull, kAny };  // how strict verify is about the table entry
enum class Backend { kAuto, kNetworkManager, kNetworkd, kIfupdown, kDirect };
enum class RoceMode { kV1, kV2 };
enum class SoftRdmaType { kRxe, kSiw };

// A physical port, by stable identity: its port GUID, or RDMA device + port number.
struct PortRef {
  std::optional<std::uint64_t> guid;
  std::string device;
  int port = 1;
};

// MTU is either a number or "auto" (the largest the mode and broadcast group allow).
struct Mtu {
  std::optional<int> bytes;  // empty = auto
};

// OpenSM's MTU for an IPoIB broadcast group when partitions.conf gives none, and what
// "auto" falls back to when the SA cannot say.
inline constexpr int kFallbackBroadcastMtu = 2048;

// The IB MTU of a partition's IPoIB broadcast group, which bounds datagram-mode
// IPoIB (MTU - 4). Each P_Key has its own group, so "auto" is learnt per P_Key:
// the CLI asks the SA (agent/broadcast_mtu.hpp) before planning and fills `learnt`,
// which keeps the planner a pure function of its inputs.
struct BroadcastMtu {
  std::optional<int> bytes;             // a number from the node file; empty = "auto"
  std::map<std::uint16_t, int> learnt;  // "auto": P_Key (with 0x8000) -> IB MTU the SA reported

  // The MTU to plan with for the group of `pkey`: the number, else what the SA
  // said, else 2048.
  // Whether the MTU of `pkey`'s group is known (a number, or the SA answered).
  bool known(std::uint16_t pkey) const {
    return bytes || learnt.count(static_cast<std::uint16_t>(pkey | 0x8000)) != 0;
  }

  int for_pkey(std::uint16_t pkey) const {
    if (bytes) return *bytes;
    auto it = learnt.find(static_cast<std::uint16_t>(pkey | 0x8000));
    return it == learnt.end() ? kFallbackBroadcastMtu : it->second;
  }
};

struct PKeyChild {
  std::uint16_t pkey = 0;  // as written; the planner normalises to |0x8000
  std::string name;        // empty = <parent>.%04x
  std::optional<IpoibMode> mode;
  Mtu mtu;
  std::vector<std::string> addresses;
  std::optional<Membership> membership;
};

struct IpoibInterface {
  PortRef port;
  std::string name;  // expected parent netdev name; empty = whatever the port has
  IpoibMode mode = IpoibMode::kDatagram;
  Mtu mtu;
  std::vector<std::string> addresses;
  BroadcastMtu broadcast_mtu;  // default "auto": asked from the SA
  Membership membership = Membership::kFull;
  bool auto_pkeys = false;  // pkeys = "auto": a child per full-member non-default P_Key
  std::vector<PKeyChild> children;
  bool persistent_name = false;  // write a udev rule naming the parent from its port GUID
};

// RoCE lossless settings through iproute2's dcb (dcb-pfc(8), dcb-ets(8), dcb-app(8),
// dcb-apptrust(8)): what the Red Hat guide and NVIDIA's RoCE guides set for a lossless
// traffic class. Each part is optional; what is absent is left as it is.
enum class DcbTrust { kPcp, kDscp };
struct DcbSettings {
  std::optional<std::vector<int>> pfc;         // priorities (0..7) with PFC on; the rest off
  std::optional<DcbTrust> trust;               // which field classifies packets
  std::vector<std::pair<int, int>> dscp_prio;  // DSCP (0..63) -> priority (0..7)
  std::optional<std::vector<int>> prio_tc;     // 8 entries: the TC of each priority
  std::optional<std::vector<int>> tc_bw;       // 8 entries: ETS share of each TC, sum 100
};

struct RoceSetting {
  std::string device;
  int port = 1;
  RoceMode mode = RoceMode::kV2;
  std::optional<int> tos;
  std::optional<DcbSettings> dcb;
};

struct SoftRdma {
  std::string name;
  SoftRdmaType type = SoftRdmaType::kRxe;
  std::string netdev;
};

// One /etc/rdma/modules/<list>.conf and the modules that must be in it.
struct ModuleList {
  std::string list;  // infiniband, roce, iwarp, opa, rdma
  std::vector<std::string> modules;
};

struct Memlock {
  std::string group = "rdma";
  std::string soft = "unlimited";
  std::string hard = "unlimited";
  // systemd services that pin memory (nfs-server.service, a job launcher): each gets a
  // LimitMEMLOCK= drop-in, since limits.d applies to PAM logins only.
  std::vector<std::string> services;
};

// A client mount of an NFS export over RDMA, as a systemd mount unit.
struct NfsMount {
  std::string what;                  // server:/export
  std::string where;                 // absolute mount point
  std::vector<std::string> options;  // besides proto=rdma,port= (e.g. vers=4.2)
};

struct NfsRdma {
  bool server = false;
  bool client = false;  // also implied by mounts
  int port = 20049;
  std::vector<NfsMount> mounts;
};

struct NodeConfig {
  Backend backend = Backend::kAuto;
  std::vector<std::string> protected_interfaces;  // never disrupted without --force
  bool ibping_responder = false;                  // watch keeps `ibsm-agent ping-responder` running
  std::vector<IpoibInterface> ipoib;
  std::vector<RoceSetting> roce;
  std::vector<SoftRdma> soft_rdma;
  std::vector<ModuleList> modules;
  std::optional<Memlock> memlock;
  std::optional<NfsRdma> nfs;
};

}  // namespace ibsm::agent
