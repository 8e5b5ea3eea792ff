// The routing-engine seam: a topology in, linear forwarding tables out, no I/O.
//
// The SM converts its fabric model into a routing::Topology after LID assignment,
// asks an Engine for LFTs, and diffs them against what the switches hold. Engines
// never see MADs, files or clocks, which is what lets them be tested on small
// hand-drawn fabrics against golden output.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "common/result.hpp"

namespace ibsm::routing {

using Lid = std::uint16_t;
using PortNum = std::uint8_t;

// LFT entry meaning "no route" (IBA 14.2.5.10: a port number above the switch's
// port count drops the packet; OpenSM uses 0xFF and ibroute shows it as unreachable).
inline constexpr PortNum kNoPath = 0xFF;

// One end of a link as seen from a switch port.
struct Link {
  enum class Kind : std::uint8_t { kSwitch, kEndPort };
  PortNum port = 0;  // local switch port (1..num_ports)
  Kind kind = Kind::kSwitch;
  std::uint32_t peer = 0;  // index into Topology::switches or Topology::end_ports
  PortNum peer_port = 0;   // port number on the peer
  // Switch-to-switch: the link runs below the fastest speed or widest width both ends
  // enable (sm/links/link_rules.hpp link_throttled); avoid_throttled_links routes around it.
  bool throttled = false;
};

struct Switch {
  std::uint64_t guid = 0;     // node GUID (= port 0 GUID)
  std::string description;    // NodeDescription, for dumps
  Lid lid = 0;                // LID of port 0
  std::uint8_t lmc = 0;       // LMC of port 0 (0 unless lmc_esp0)
  PortNum num_ports = 0;      // external ports, port 0 not counted
  std::uint32_t lft_cap = 0;  // SwitchInfo.LinearFDBCap
  std::vector<Link> links;    // active links only, any order
};

// A CA or router port attached to a switch port (or directly to another end port).
struct EndPort {
  std::uint64_t port_guid = 0;
  std::uint64_t node_guid = 0;
  std::string description;
  bool is_router = false;
  Lid base_lid = 0;
  std::uint8_t lmc = 0;           // 2^lmc LIDs from base_lid
  std::uint32_t sw = UINT32_MAX;  // index of the switch it hangs off; UINT32_MAX if none
  PortNum sw_port = 0;
  PortNum port_num = 0;  // port number on its own node
};

struct Topology {
  std::vector<Switch> switches;
  std::vector<EndPort> end_ports;
};

// lft[lid] = output port for that destination LID; kNoPath where unreachable.
// Its size is max LID + 1 of the fabric (port 0 = the switch itself).
using Lft = std::vector<PortNum>;

// The service level of every path, for engines that spread paths over virtual layers
// (dfsssp). A path is named by its source switch (the switch the source end port hangs
// off: Topology::end_ports[e].sw) and its destination LID; every end port of a switch
// shares the switch's LFT path, hence its SL. The SA answers PathRecord and
// MultiPathRecord with sl(src_switch, dlid); the SM programs SL2VL as identity for
// SL < OperVLs so that SL i travels on VL i. Empty for single-layer engines: SL 0.
// Memory: one byte per (switch, LID), 7 MB for 1000 switches x 7000 LIDs.
struct PathSls {
  std::size_t lids = 0;             // row length: max LID + 1
  std::vector<std::uint8_t> table;  // [src_switch * lids + dlid]
  unsigned layers = 0;              // acyclic layers the engine needed (before balancing)
  unsigned sls = 0;                 // SLs handed out after spreading over spare VLs
  // SL bits the engine leaves to the requester: torus-2QoS decides bits 0-2 (datelines)
  // and bit 3 is the QoS level a PathRecord asks for (its SL, or the partition's), as
  // OpenSM's torus path_sl hook takes it from the hint. 0: the engine's SL is final.
  std::uint8_t requester_bits = 0;

  bool empty() const { return table.empty(); }
  std::uint8_t sl(std::uint32_t src_switch, Lid dlid) const {
    const std::size_t i = std::size_t{src_switch} * lids + dlid;
    return dlid < lids && i < table.size() ? table[i] : 0;
  }
};

struct Routes {
  std::vector<Lft> lfts;  // one per Topology::switches entry, same order
  PathSls path_sl;        // per-path SLs; empty: SL 0 everywhere
  // What the caller should log as warnings, each with its error ID (ignored root GUIDs,
  // destinations an engine's rules leave unreachable, ...). Engines have no logger.
  std::vector<Error> warnings;
  // Per-port SL->VL tables for engines whose VL depends on the hop, not only on the path's
  // SL (torus-2QoS: the VL follows the output port's dimension and the turn). Empty: the SM
  // programs the default (SL i -> VL i) wherever path_sl is set (sm/tables/sl2vl_plan.hpp).
  struct Sl2Vl {
    using Table = std::array<std::uint8_t, 16>;  // VL of each SL, before masking to OperVLs
    // switches[s][in * (num_ports + 1) + out]: the table of switch s for packets entering by
    // `in` (0 = the switch itself) and leaving by `out`, Topology::switches order.
    std::vector<std::vector<Table>> switches;
    std::vector<Table> end_ports;  // per Topology::end_ports entry: what the port sends
    bool empty() const { return switches.empty(); }
  };
  Sl2Vl sl2vl;
};

// Settings from outside the fabric (opensm.conf) that some engines use.
struct EngineConfig {
  // Root switches for updn (root_guid_file, -a). A GUID that is no switch of the
  // topology (OpenSM also accepts a CA's GUID: its switch becomes the root) is ignored
  // with a warning in Routes::warnings. Empty: the engine finds roots itself.
  std::vector<std::uint64_t> root_guids;
  // Data VLs every inter-switch port runs (PortInfo.OperVLs; 8 = VL0-7, OpenSM's usual
  // fabric). dfsssp uses at most this many virtual layers, one SL (= VL) each, and fails
  // with kErrDfssspVlsExhausted when they do not suffice. The SM should pass the fabric's
  // minimum OperVLs; at most 15 (VL15 is management).
  unsigned max_vls = 8;
  // lash_start_vl: the first SL (= VL) lash hands out; lash uses SLs from here to max_vls - 1.
  unsigned lash_start_vl = 0;
  // do_mesh_analysis: lash tries dimension-ordered paths on a mesh or torus first.
  bool do_mesh_analysis = false;
  // nue_max_num_vls: the virtual layers nue may use, at most max_vls; 0 = max_vls.
  unsigned nue_max_vls = 1;
  // nue_include_switches: traffic that switches themselves send (port 0 as a source) is
  // kept free of credit loops too, not only traffic between end ports.
  bool nue_include_switches = false;
  // avoid_throttled_links: sssp, dfsssp and nue leave throttled switch-to-switch links
  // out (routing/throttled_links.hpp), except where they are the only way.
  bool avoid_throttled_links = false;

  // Port GUIDs of compute nodes (cn_guid_file, -u) and I/O nodes (io_guid_file, -G) for
  // ftree (and sssp/dfsssp destination order). Empty: every end port is a compute node.
  std::vector<std::uint64_t> cn_guids;
  std::vector<std::uint64_t> io_guids;
  // ids_guid_file (-m): switch GUID -> id used instead of the GUID where an engine breaks
  // ties by GUID (updn ranks, ftree indexing).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> guid_ids;
  // Port GUIDs whose LIDs do not count when balancing routes over ports
  // (port_prof_ignore_file, -i).
  std::vector<std::uint64_t> balance_ignored_guids;
  bool connect_roots = false;              // -z: roots reach each other (updn, ftree)
  bool quasi_ftree_indexing = false;       // ftree: index switches from the roots
  unsigned max_reverse_hops = 0;           // ftree: reverse hops allowed for I/O nodes (-H)
  bool port_profile_switch_nodes = false;  // count switch LIDs when balancing ports

  // Route-balancing inputs of minhop and updn (routing/port_balance.hpp; sssp and dfsssp
  // take the routing order and the ignored ports too):
  // guid_routing_order_file (-X): port GUIDs (a switch GUID: its port-0 LID) routed first,
  // in file order; every other destination follows in the engine's own order.
  std::vector<std::uint64_t> routing_order_guids;
  bool routing_order_no_scatter = false;  // guid_routing_order_no_scatter: no scatter for those
  bool port_shifting = false;             // --port-shifting
  std::uint32_t scatter_seed = 0;         // --scatter-ports <seed>; 0 = off
  // hop_weights_file (-w): the cost of leaving `switch_guid` by `port` (default 1), which
  // minhop adds up instead of counting hops (routing/hop_weights.hpp).
  struct HopWeight {
    std::uint64_t switch_guid = 0;
    PortNum port = 0;
    std::uint8_t weight = 1;
  };
  std::vector<HopWeight> hop_weights;

  // Text files an engine interprets, read by the SM on every heavy sweep (engines do no
  // I/O), so their errors can name the path and line. An empty path: not configured.
  struct Text {
    std::string path;
    std::string text;
    bool configured() const { return !path.empty(); }
  };
  Text torus_config;  // torus-2QoS.conf (torus_config)
  Text lfts;          // opensm-lfts.dump to load (file engine: lfts_file, -U)
  Text lid_matrix;    // opensm-lid-matrix.dump to load (file engine: lid_matrix_dump_file, -M)
  // port_search_ordering_file (-O, OpenSM's dimn_ports_file): lines "<switch guid> <port>
  // ..." giving the order in which dor (and nothing else yet) tries a switch's ports.
  Text port_search_ordering;
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string_view name() const = 0;
  // Computes the forwarding tables. Fails (with a routing error ID) when the engine
  // cannot route this topology; the caller then falls back as configured.
  virtual Result<Routes> route(const Topology& topo) = 0;
  // True when the engine's rules guarantee an acyclic channel dependency graph
  // (no credit loops, Dally & Seitz 1987). The SM verifies the claim on every result.
  virtual bool deadlock_free() const { return false; }
  // True when the engine's rules give every switch with end ports a route to every LID of
  // a connected fabric (CA and router ports, switch port 0). The SM verifies the claim
  // with the route report and discards tables that fail it, as for deadlock_free.
  virtual bool complete() const { return false; }
};

// Engine by OpenSM name ("minhop", "updn", ...); nullptr if unknown.
std::unique_ptr<Engine> make_engine(std::string_view name);
std::unique_ptr<Engine> make_engine(std::string_view name, const EngineConfig& config);

// Names make_engine accepts, in preference order.
std::vector<std::string_view> engine_names();

}  // namespace ibsm::routing
