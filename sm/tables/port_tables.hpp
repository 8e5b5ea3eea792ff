// PortTables: what ports hold in the tables the SM reads once per device rather than
// on every sweep, for the SA's table records: SLtoVLMappingTable (IBA 14.2.5.8) and
// VLArbitrationTable (IBA 14.2.5.9) of end ports (CA ports, an enhanced switch port
// 0), and the P_KeyTable of the switch ports the partition manager does not read
// (inter-switch links; it reads end ports, switch port 0 and switch ports facing end
// ports on every sweep). A base switch's per-pair SL2VL and per-port VLArbitration
// tables are not read (tables_of() says why).
//
// Why once: only an SM writes these tables, so what a port answered stays true until
// the device is reset or replaced. Entries are kept by node GUID across sweeps and
// dropped when the node is missing from a sweep or shows the mark of a reset (a port
// that holds a LID reads LID 0 again); the next sweep then reads them afresh. An
// unchanged fabric costs no SMP here after the first sweep; a port that comes up
// costs only its own tables. The reads come after SUBNET UP (sm/heavy_sweep.cpp):
// no port needs them to come up.
//
// OpenSM 3.3.23 with qos FALSE neither reads nor sets SL2VL/VLArbitration tables
// and its SA reports zeros for them; ibsm reports what the ports hold.
//
// Programming writes these tables (sm/tables/ program_sl2vl for routing engines with
// per-path SLs and QoS, qos::program_vlarb for QoS): after a Set succeeds it records
// what it wrote with record_sl2vl()/record_vlarb() (the calls the reads use), so the SA serves it
// and no read is sent for it: "what the port holds" is this cache, whoever filled it.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "common/log.hpp"
#include "mad/attr/pkey_table.hpp"
#include "mad/attr/vl_tables.hpp"
#include "mad/smp_client.hpp"
#include "sa/snapshot.hpp"
#include "sm/fabric/fabric.hpp"

namespace ibsm::sm {

// Which tables of a fabric's ports exist and are worth reading (pure, for tests).
// The SL2VL pairs of a switch are (input, output) with the output port up (port 0
// only on an enhanced port 0) and the input port up or 0: traffic enters nowhere
// else. Switches speak for all their ports through port 0's IsSLMappingSupported.
struct TableWant {
  NodeIndex node = kNoNode;
  enum class Kind : std::uint8_t { kSl2Vl, kVlArb, kPKey } kind = Kind::kSl2Vl;
  PortNum port = 0;         // SL2VL: output port; VLArb, P_Key: the port
  std::uint16_t index = 0;  // SL2VL: input port; VLArb: block 1-4; P_Key: block
};
std::vector<TableWant> tables_of(const Fabric& f, NodeIndex node);

class PortTables {
 public:
  explicit PortTables(Logger log) : log_(std::move(log)) {}

  struct Counts {
    std::size_t sl2vl = 0;
    std::size_t vlarb = 0;
    std::size_t pkey = 0;
    std::size_t total() const { return sl2vl + vlarb + pkey; }
  };

  // Forgets the nodes missing from a freshly discovered fabric, and those that show
  // the reset mark there (it is gone once the sweep has programmed LIDs again).
  void forget_changed(const Fabric& discovered);

  // Asks for each table of `f`'s ports that is not known: the Gets are made as the
  // client's queue drains, so `f` must outlive them (the SM's own fabric does); a
  // node that has left it by then is skipped. `f` is a swept fabric: a switch port
  // whose Port::pkeys the partition manager filled is its, not ours. Failures never fail anything
  // (the SA then reports 0, as OpenSM does): a port that answers with an error status has no such
  // table and is not asked again; one that does not answer is asked again after the next heavy
  // sweep.
  Counts read(const Fabric& f, mad::SmpClient& client);

  // Makes room for a node's tables (read() does so for what it reads), so that a Set
  // sent before the first read can be recorded.
  void ensure(const Node& n);
  // The SL2VL table (packed, mad::SlToVlTable::packed()) a port is known to hold for
  // input port `in` (0 for a CA port); nullopt when neither read nor Set yet.
  std::optional<std::uint64_t> sl2vl(Guid node, PortNum out, PortNum in) const;
  // The VLArbitrationTable block 1-4 a port is known to hold; nullopt when neither read
  // nor Set yet.
  std::optional<mad::VlArbBlock> vlarb(Guid node, PortNum port, unsigned block) const;

  // What a port holds, from a read or from a Set that succeeded.
  void record_sl2vl(Guid node, PortNum out, PortNum in, const mad::SlToVlTable& t);
  void record_vlarb(Guid node, PortNum port, unsigned block, const mad::VlArbBlock& b);
  void record_pkeys(Guid node, PortNum port, std::uint16_t block, const mad::PKeyBlock& b);

  // For the SA snapshot: null when nothing of the port is known; shared, so
  // snapshots of an unchanged fabric cost no copy.
  std::shared_ptr<const sa::PortVlTables> vl_tables(Guid node, PortNum port) const;
  // A switch external port's P_Key table when every block of it is known.
  const std::vector<std::uint16_t>* pkeys(Guid node, PortNum port) const;

  std::size_t nodes_known() const { return nodes_.size(); }

 private:
  // Sized on first use: most ports of a big fabric are switch ports whose SL2VL and
  // VLArbitration tables nobody reads (a few MB on 2048 hosts when allocated up front).
  struct VlArbBlocks {
    std::array<std::array<std::uint8_t, mad::kSmpDataSize>, mad::VlArbBlock::kBlocks> blocks{};
    std::array<bool, mad::VlArbBlock::kBlocks> known{};
  };
  struct PortEntry {
    std::vector<std::uint64_t> sl2vl;  // by input port (one entry for a CA port), grown on record
    std::vector<bool> sl2vl_known;
    std::unique_ptr<VlArbBlocks> vlarb;
    std::vector<std::uint16_t> pkeys;
    std::vector<bool> pkey_known;                               // by block
    mutable std::shared_ptr<const sa::PortVlTables> published;  // reset by every change
  };
  struct NodeEntry {
    std::vector<PortEntry> ports;  // index = port number
  };

  // One Get of what `w` names, with the callback that records the answer.
  void submit_read(const Fabric& f, const TableWant& w, mad::SmpClient& client);
  PortEntry* entry(Guid node, PortNum port);
  const PortEntry* entry(Guid node, PortNum port) const;
  void mark_absent(Guid node, const TableWant& w);  // the port has no such table: reads 0

  Logger log_;
  std::unordered_map<Guid, NodeEntry> nodes_;
};

}  // namespace ibsm::sm
