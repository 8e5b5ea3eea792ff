// FakeFabric: the subnet management agents of a whole fabric, simulated in-process
// behind the MadTransport seam, so SubnetManager and SmpClient run against a fabric
// in unit tests without ibsim, threads or sleeps.
//
// What it models (IBA vol. 1 chapter 14):
//  - Directed-route SMPs (14.2.2): hop by hop out of InitialPath from the SM's node;
//    only switches forward; a missing or down link, a CA in the middle of the path or a
//    dead node means the SMP is lost (no answer). Responses carry D=1 and the return
//    path. Only fully directed SMPs (permissive DrSLID/DrDLID) are modelled.
//  - LID-routed SMPs, forwarded by the switches' linear forwarding tables.
//  - Get/Set of NodeInfo, NodeDescription, PortInfo, SwitchInfo, LinearForwardingTable,
//    MulticastForwardingTable, P_KeyTable, SLtoVLMappingTable, VLArbitrationTable and GUIDInfo with
//    the IBA rules the SM depends on (see apply_port_info_set()), and of the vendor attribute
//    MLNXExtendedPortInfo on ports given one (FakePort::mlnx_ext). Anything else is answered
//    with status "attribute not supported" (0x0C).
//  - M_Key (14.2.4): every request is checked against a switch's port 0 or the CA
//    port it enters; invalid Gets are answered at ProtectBits 0 and 1 (key hidden
//    at 1), other invalid requests dropped as violations with the lease timer on
//    the fake clock. A valid PortInfo Set stores M_Key, ProtectBits and the lease
//    (real HCAs do; ibsim does not).
//  - Time: responses are due `latency` after the request; receive(max_wait) with
//    nothing due advances the FakeClock, so timeouts happen without sleeping.
//  - The kernel: response TIDs get `hi_tid` in bits 32-63, as ib_umad does.
//
// Faults: lost requests (rate or n-th), silent nodes, garbage answers, slow nodes,
// nodes that refuse Sets, nodes that vanish after K answers, links that go down after N
// requests. Duplicate
// GUIDs are made in the neutral description before building the fake.
//
// Everything is deterministic: ordered containers and a seeded PRNG.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "common/clock.hpp"
#include "mad/attr/mlnx_ext_port_info.hpp"
#include "mad/attr/node_info.hpp"
#include "mad/attr/port_info.hpp"
#include "mad/attr/sm_info.hpp"
#include "mad/attr/switch_info.hpp"
#include "mad/smp.hpp"
#include "mad/transport.hpp"
#include "tests/support/fabric.hpp"

namespace ibsm::fake {

using mad::Guid;
using mad::Lid;
using mad::PortNum;

struct PortRef {
  std::uint32_t node = 0;
  PortNum port = 0;
  bool operator==(const PortRef&) const = default;
  auto operator<=>(const PortRef&) const = default;
};

// Another SM on a port (a CA port, or a switch's port 0): answers SubnGet(SMInfo)
// with `info` and takes SubnSet(SMInfo) as IBA 14.4.1 lets its state take them
// (only HANDOVER changes it here: STANDBY/DISCOVERING -> MASTER). Its port
// advertises IsSM while `alive`.
struct FakeSm {
  mad::SmInfo info;
  bool alive = true;                        // false: the SM process died (no answers)
  std::optional<std::uint16_t> set_status;  // forced status of Set answers
  std::vector<std::uint32_t> sets;          // attribute modifiers of the Sets received
};

struct FakePort {
  mad::PortInfo info;            // as the port would answer (switch ports > 0: see port_info())
  std::optional<PortRef> cable;  // what is plugged in, whether the link works or not
  std::optional<FakeSm> sm;      // another SM running on this port
  bool link_ok = true;           // false: the cable failed (set_link)
  std::vector<std::uint16_t> pkeys;
  // SLtoVLMappingTable as on the wire: a CA port's at [0]; a switch port's by input
  // port (this port as output). VLArbitrationTable blocks 1-4 at [0..3].
  std::vector<std::array<std::uint8_t, 8>> sl2vl;
  std::array<std::array<std::uint8_t, 64>, 4> vlarb{};
  // GUIDInfo table (IBA 14.2.5.5), GUIDCap entries, [0] = the port GUID (read-only):
  // CA ports and switch port 0 only; empty elsewhere.
  std::vector<Guid> guids;
  // MLNXExtendedPortInfo (0xFF90) as the port answers it; unset: the attribute is
  // unsupported here. A Set with StateChangeEnable stores LinkSpeedEnabled. After a
  // reset, the physical ports of devices on OpenSM's list (the CAs: ConnectX-3) answer
  // it without FDR10.
  std::optional<mad::MlnxExtPortInfo> mlnx_ext;
};

// A Congestion Control agent (class 0x21, IBA Annex A10) on a switch's port 0 or a CA
// port: it stores what a Set carries and answers GetResp echoing it. Without one
// (FakeNode::cc unset) a node answers a CC Get/Set as the Linux MAD layer answers a
// request of a class no agent registered: status 0x000C, method/attribute unsupported.
struct FakeCc {
  std::uint64_t cc_key = 0;             // Sets carrying another CC_Key are dropped (A10.2.1)
  std::optional<std::uint16_t> status;  // forced status of every answer
  bool silent = false;                  // no answers at all
  bool wrong_attribute = false;         // answers carry AttributeID + 1
  bool short_answer = false;            // only 40 bytes arrive
  // Held values by (AttributeID, modifier) as the data area (192 bytes) arrived.
  std::map<std::pair<std::uint16_t, std::uint32_t>, std::array<std::uint8_t, 192>> held;
  std::vector<std::array<std::uint8_t, 256>> received;  // every CC MAD, as it arrived
};

// How a node spoils its answers.
enum class Garbage : std::uint8_t {
  kNone,
  kBadNodeInfo,     // NodeInfo with NumPorts 0 and GUIDs 0 (other attributes answered fine)
  kWrongAttribute,  // response carries another AttributeID
  kShortMad,        // only the first 40 bytes arrive
  kNotAnSmp,        // class version 2
  kRandomPayload,   // 64 random data bytes
  kErrorStatus,     // status 0x1C (invalid value) on every answer
};

struct NodeFaults {
  bool silent = false;  // the SMA is dead: it neither answers nor forwards
  Garbage garbage = Garbage::kNone;
  std::optional<std::uint64_t> vanish_after;  // answers given before the node disappears
  std::chrono::milliseconds latency{0};       // extra delay of this node's answers
  // Sets (SMInfo aside) answered with this status and not carried out; Gets as usual.
  std::optional<std::uint16_t> set_status;
};

struct FakeNode {
  std::string id;
  mad::NodeInfo info;
  std::string description;
  std::vector<FakePort> ports;  // index = port number; a CA's port 0 is unused
  std::optional<mad::SwitchInfo> switch_info;
  std::vector<PortNum> lft;  // switches: LinearFDBCap entries, 0xFF = no path
  // Switches: MulticastFDBCap MLIDs from 0xC000, each mcast_positions() 16-bit port
  // masks (IBA 14.2.5.12): mft[(mlid - 0xC000) * mcast_positions() + position].
  std::vector<std::uint16_t> mft;
  NodeFaults faults;
  // Congestion Control agents by port (a switch's at 0); no entry: no CC agent.
  std::map<PortNum, FakeCc> cc;
  // The device fills the extended-speed fields of PortInfo (LinkSpeedExt*, and XDR's
  // LinkSpeedExt*2) only for a Get with SMSupportsExtendedSpeeds (attribute modifier
  // bit 31); without it they read 0 while the CapabilityMask still advertises them,
  // as the NDR switch of OpenSM issue 38 answers. false: always filled.
  bool ext_speeds_only_with_bit31 = false;
  std::uint64_t answered = 0;
  bool gone = false;  // vanished: no answers, links down

  bool is_switch() const { return info.node_type == mad::NodeType::kSwitch; }
  PortNum num_ports() const { return info.num_ports; }
  std::size_t mcast_positions() const { return (std::size_t{info.num_ports} + 1 + 15) / 16; }
};

struct FakeOptions {
  std::string sm_node;  // id of the node the SM runs on; empty = the first CA
  PortNum sm_port = 1;
  std::uint16_t linear_fdb_cap = 0xC000;
  std::uint16_t multicast_fdb_cap = 256;  // SwitchInfo.MulticastFDBCap of every switch
  // Switch port 0 advertises MulticastFDBTop (CapabilityMask bit 30): the switch then
  // takes SwitchInfo.MulticastFDBTop and forwards no MLID above it (reset: 0xBFFF).
  bool mcast_fdb_top_cap = false;
  std::uint8_t switch_mtu_cap = 5;  // 4096
  std::uint8_t ca_mtu_cap = 4;      // 2048
  std::uint8_t switch_vl_cap = 4;   // VL0-7
  std::uint8_t ca_vl_cap = 3;       // VL0-3
  std::uint16_t partition_cap = 64;
  // PortInfo.GUIDCap of CA ports and switch port 0 (switch external ports keep 1).
  // ibsim's port templates say 8 but answer only Get of block 0; 1 keeps the SA's
  // GUIDInfoRecord answers of the existing tests at one block per port.
  std::uint8_t guid_cap = 1;
  // Switches advertise SwitchInfo.OptimizedSLtoVLMappingProgramming: an SLtoVLMappingTable
  // Set may carry modifier bits 17 (all input ports) and 16 (all output ports).
  bool optimized_sl2vl = false;
  // Physical ports answer a PortInfo Set without keeping the error thresholds or the
  // "as supported" enable codes (255 width, 15 speed), as ibsim's ports do; they also
  // advertise 2x width without enabling it, so the SM's default asks for 255.
  bool ignores_link_fields = false;
  std::uint32_t hi_tid = 0x2a;  // the kernel's agent bits in responses
  std::uint32_t seed = 1;
};

struct FakeStats {
  std::uint64_t requests = 0;      // Get/Set SMPs the SM sent
  std::uint64_t answered = 0;      // responses queued for the SM
  std::uint64_t lost = 0;          // discarded: DR rules, down links, silent or vanished nodes
  std::uint64_t dropped = 0;       // dropped by an injected loss fault
  std::uint64_t mkey_dropped = 0;  // dropped by an SMA for a wrong M_Key (violations)
  std::map<std::pair<mad::Method, mad::AttrId>, std::uint64_t> by_kind;  // requests received
  std::vector<std::uint32_t> sl2vl_set_mods;  // attribute modifiers of SLtoVLMappingTable Sets

  std::uint64_t count(mad::Method m, mad::AttrId a) const {
    auto it = by_kind.find({m, a});
    return it == by_kind.end() ? 0 : it->second;
  }
  std::uint64_t count(mad::Method m) const {
    std::uint64_t n = 0;
    for (const auto& [k, v] : by_kind)
      n += k.first == m ? v : 0;
    return n;
  }
};

// What a multicast packet flooded along the MFTs reached.
struct McastFlood {
  std::map<PortRef, unsigned> reached;  // end ports and switch ports 0, copies received
  std::vector<std::string> problems;    // loops, down links, MLIDs above MulticastFDBTop
  bool looped = false;
  // Copies each of `members` got, in order (the sender's own copies included).
  std::vector<unsigned> copies(const std::vector<PortRef>& members) const {
    std::vector<unsigned> out;
    for (const PortRef& m : members) {
      auto it = reached.find(m);
      out.push_back(it == reached.end() ? 0 : it->second);
    }
    return out;
  }
};

// What a route through the LFTs reached.
struct LidRoute {
  std::optional<PortRef> reached;  // the end port or switch port 0 holding the LID
  std::string error;               // why not, when !reached
  unsigned hops = 0;
};

class FakeFabric : public mad::MadTransport {
 public:
  FakeFabric(const testsupport::Fabric& description, FakeClock& clock, FakeOptions options = {});

  // MadTransport.
  Status send(const mad::OutgoingMad& mad) override;
  std::optional<mad::IncomingMad> receive(std::chrono::milliseconds max_wait) override;
  mad::LocalPort local_port() const override;
  // GSI: Congestion Control (class 0x21) only, LID-routed to FakeNode::cc agents
  // (tests/fake/fake_cc.cpp). Other classes fail as in the base class.
  Status register_gsi_class(std::uint8_t mgmt_class, std::uint8_t class_version) override;
  Status send_gsi(std::span<const std::uint8_t> mad, const mad::MadAddress& to,
                  std::uint32_t timeout_ms) override;
  std::uint64_t cc_requests() const { return cc_requests_; }
  bool cc_registered() const { return cc_registered_; }

  // Nodes, in the order of the description.
  std::size_t size() const { return nodes_.size(); }
  const FakeNode& node(std::uint32_t i) const { return nodes_[i]; }
  FakeNode& node(std::uint32_t i) { return nodes_[i]; }
  std::uint32_t index(const std::string& id) const;  // aborts the test on an unknown id
  PortRef sm_port() const { return {sm_node_, sm_port_}; }
  // PortInfo as a Get would return it (switch ports > 0 carry port 0's LID fields).
  mad::PortInfo port_info(std::uint32_t node, PortNum port) const;

  // Power-cycles every node: LIDs 0, tables empty, working links back to Init.
  // Faults and statistics are kept.
  void reset_cold();
  // A cable fails (both ends Down) or works again (both ends Init). Sets the
  // switches' PortStateChange.
  void set_link(std::uint32_t node, PortNum port, bool up);

  // Faults.
  NodeFaults& faults(std::uint32_t node) { return nodes_[node].faults; }
  void set_loss_rate(double p) { loss_rate_ = p; }
  void lose_request(std::uint64_t n) { lose_nth_.push_back(n); }  // n-th request, 1-based
  void link_down_after(std::uint32_t node, PortNum port, std::uint64_t requests);
  // Called with every Get/Set the SM sends, before it is answered: a test injects an
  // event (inject()) at the moment a given request is on the wire.
  void on_request(std::function<void(const mad::Smp&)> fn) { on_request_ = std::move(fn); }
  void clear_faults();

  // Runs another SM on `node`'s `port` (0 on a switch): IsSM in its CapabilityMask.
  FakeSm& add_sm(std::uint32_t node, PortNum port, const mad::SmInfo& info);
  FakeSm& sm_at(std::uint32_t node, PortNum port) { return *nodes_[node].ports[port].sm; }
  // Traps the SM sent (Trap 144 to another SM, ...).
  std::vector<mad::Smp> sm_traps() const;

  // Unsolicited MADs to the SM (another SM's Get(SMInfo), traps), and what the SM
  // sent that was not a request (GetResp, TrapRepress).
  void inject(const mad::Smp& smp, Lid slid);
  const std::vector<mad::Smp>& sm_responses() const { return sm_responses_; }

  // Follows the LFTs from switch `from` towards `dlid`.
  LidRoute follow_lid(std::uint32_t from, Lid dlid) const;
  // Every switch to every LID of every LID holder: each must arrive, loop-free.
  // Returns one line per problem; `routes` counts the routes checked.
  std::vector<std::string> check_routes(std::size_t* routes = nullptr) const;
  // Sends one packet to `mlid` from `from` (a CA port, or a switch's port 0) and
  // follows every copy along the switches' MFTs: a switch forwards out of every port
  // of the MLID's mask except the one the packet came in on (IBA chapter 18, switch
  // multicast forwarding).
  McastFlood follow_mlid(PortRef from, Lid mlid) const;
  // Linked physical ports that are not Active.
  std::vector<std::string> inactive_ports() const;

  // M_Key lease timers (IBA 14.2.4.2) that ran out by the fake clock's now: those ports'
  // ProtectBits become 0. send() calls it; tests call it to look at the ports.
  void expire_mkey_leases();
  bool mkey_lease_running(std::uint32_t node, PortNum port) const {
    return mkey_leases_.contains(PortRef{node, port});
  }

  const FakeStats& stats() const { return stats_; }
  void reset_stats() { stats_ = {}; }

 private:
  struct Arrival {
    std::uint32_t node = 0;
    PortNum port = 0;  // port the SMP arrived on
    std::array<std::uint8_t, 64> return_path{};
  };
  struct Answer {
    bool none = false;  // nobody answers (an SMInfo to a port without a live SM)
    std::uint16_t status = 0;
    std::array<std::uint8_t, mad::kSmpDataSize> data{};
  };

  void cold_port(FakeNode& n, PortNum p);
  bool link_usable(std::uint32_t node, PortNum port) const;
  std::optional<PortRef> peer(std::uint32_t node, PortNum port) const;
  bool holds_lid(std::uint32_t node, PortNum port, Lid lid) const;
  void port_went_down(std::uint32_t node, PortNum port);
  void vanish(std::uint32_t node);
  void flag_port_state_change(std::uint32_t node);

  std::optional<Arrival> route_directed(const mad::Smp& smp) const;
  std::optional<Arrival> route_lid(Lid dlid) const;
  Answer answer(FakeNode& n, PortNum in_port, const mad::Smp& req);
  Answer port_info_request(FakeNode& n, PortNum in_port, const mad::Smp& req);
  // The SMA's M_Key check of a request (IBA 14.2.4): see check_mkey() in the .cpp.
  enum class MkeyVerdict : std::uint8_t { kValid, kHideKey, kDrop };
  MkeyVerdict check_mkey(std::uint32_t node, PortNum key_port, const mad::Smp& req);
  void spoil(const FakeNode& n, mad::IncomingMad& in);
  void deliver(mad::IncomingMad in, std::chrono::milliseconds latency);

  FakeClock& clock_;
  FakeOptions options_;
  std::vector<FakeNode> nodes_;
  std::uint32_t sm_node_ = 0;
  PortNum sm_port_ = 1;

  std::multimap<Clock::TimePoint, mad::IncomingMad> inbox_;  // equal times keep send order
  std::vector<mad::Smp> sm_responses_;
  FakeStats stats_;

  double loss_rate_ = 0;
  std::vector<std::uint64_t> lose_nth_;
  std::function<void(const mad::Smp&)> on_request_;
  struct LinkEvent {
    std::uint32_t node;
    PortNum port;
    std::uint64_t after;
  };
  std::vector<LinkEvent> link_events_;
  std::map<PortRef, Clock::TimePoint> mkey_leases_;  // running M_Key lease timers
  std::mt19937 rng_;
  bool cc_registered_ = false;
  std::uint64_t cc_requests_ = 0;
};

// IBA 14.2.5.6 rules for a Set(PortInfo) on a port, as a pure function: returns the
// port's new PortInfo, or nullopt when the Set is invalid as a whole (status 0x1C, no
// field applied). `lid_holder`: CA port or switch port 0; `physical`: port != 0;
// `ignores_link_fields`: see FakeOptions; `sm_knows_ext`: the Set carried
// SMSupportsExtendedSpeeds (only then are the LinkSpeedExtEnabled fields taken).
std::optional<mad::PortInfo> apply_port_info_set(const mad::PortInfo& current,
                                                 const mad::PortInfo& request, bool lid_holder,
                                                 bool physical, bool ignores_link_fields = false,
                                                 bool sm_knows_ext = false);

// Decodes a PortInfo payload without validation (a Set may carry PortState 0).
mad::PortInfo decode_port_info_unchecked(mad::ConstPayload p);

}  // namespace ibsm::fake
