// Alias GUIDs into the ports: the SA keeps each port's alias table (sa/alias_guids.hpp,
// filled by GUIDInfoRecord Set/Delete, IBA 15.2.5.18); this writes it into the port
// with SubnSet(GUIDInfo), one 8-GUID block per SMP, attribute modifier = block
// (IBA 14.2.5.5). As in OpenSM (osm_guid_mgr.c, called from osm_state_mgr.c) it runs
// twice over: in every heavy sweep's programming phase, and whenever the SA queued a
// change (OpenSM's OSM_SIGNAL_GUID_PROCESS_REQUEST; here SubnetManager::run checks
// between polls).
//
// OpenSM sends every queued block and never reads GUIDInfo back. ibsm remembers, by
// port GUID, what each port confirmed in the GetResp of a Set and sends only blocks
// that differ from it, so a sweep over an unchanged fabric sends nothing. A port's
// confirmed blocks are forgotten, so written again, when
//  - this SM becomes master (its first master sweep): the ports may have lost the
//    aliases, or another SM may have written others;
//  - discovery finds the port with LID 0: it was reset (power cycle, driver reload)
//    and its table is back to the port GUID alone;
//  - the port is gone from the fabric.
// A block the port was never written is taken to hold the reset contents: index 0 the
// port GUID, zeros elsewhere.
//
// Only CA (and router) ports and switch port 0 have GUID tables, and only the blocks
// below GUIDCap: a port with GUIDCap 1 holds just its own GUID and is never sent a Set.
// A port that refuses a block (an error status, or a GetResp without what was asked)
// is not asked for the same contents again until they change or the port is
// forgotten: ibsim, for one, answers Set(GUIDInfo) with "method not supported". As in
// OpenSM, whose GUIDInfo receiver only logs, nothing here fails a sweep.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>

#include "common/log.hpp"
#include "mad/attr/guid_info.hpp"
#include "mad/smp_client.hpp"
#include "sa/alias_guids.hpp"
#include "sm/fabric/fabric.hpp"

namespace ibsm::sm {

struct AliasGuidCounters {
  std::uint64_t sets = 0;       // SubnSet(GUIDInfo) submitted
  std::uint64_t confirmed = 0;  // answered with the block as asked
  std::uint64_t refused = 0;    // error status, or the port kept something else
  std::uint64_t failed = 0;     // no usable answer (timeout, malformed, send failure)
};

class AliasGuidProgrammer {
 public:
  explicit AliasGuidProgrammer(Logger log) : log_(std::move(log)) {}

  // Heavy sweep, programming phase, before the phase's barrier: queues the blocks of
  // every alias table that differ from what the port holds. `f` is this sweep's
  // fabric as discovery left it (its PortInfo LIDs tell reset ports). `new_master`:
  // this SM's first master sweep, forget what every port was thought to hold.
  // The SA's queued changes are covered by the comparison and dropped. Returns the
  // number of Sets queued.
  std::size_t program_all(const Fabric& f, sa::AliasGuids& aliases, mad::SmpClient& client,
                          bool new_master);

  // Between sweeps: the blocks the SA queued since the last call, against the last
  // heavy sweep's fabric (the ports' DR paths and GUIDCap). Returns the Sets queued.
  std::size_t program_changes(const Fabric& f, sa::AliasGuids& aliases, mad::SmpClient& client);

  // What a port confirmed it holds in `block`, nullopt when unknown.
  std::optional<mad::GuidInfoBlock> held(Guid port_guid, std::uint8_t block) const;
  const AliasGuidCounters& counters() const { return counters_; }

 private:
  // How to reach a port's GUID table and how many blocks it has.
  struct Target {
    Guid guid = 0;
    mad::DrPath path;
    std::uint32_t blocks = 0;
  };
  // Per port GUID: confirmed blocks, blocks refused with the contents asked, and
  // blocks on the wire with the contents sent.
  struct PortRecord {
    std::map<std::uint8_t, mad::GuidInfoBlock> held;
    std::map<std::uint8_t, mad::GuidInfoBlock> refused;
    std::map<std::uint8_t, mad::GuidInfoBlock> in_flight;
  };

  static std::optional<Target> target(const Fabric& f, NodeIndex node, PortNum port);
  // Queues the block unless the port holds it, has it on the wire or refused it.
  bool send_if_differs(const Target& t, std::uint8_t block, const mad::GuidInfoBlock& want,
                       mad::SmpClient& client);
  void on_answer(Guid port_guid, std::uint8_t block, const mad::GuidInfoBlock& want,
                 const mad::SmpOutcome& o);

  Logger log_;
  std::unordered_map<Guid, PortRecord> ports_;
  AliasGuidCounters counters_;
};

}  // namespace ibsm::sm
