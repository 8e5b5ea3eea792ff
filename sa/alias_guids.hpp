// Alias GUIDs (IBA 15.2.5.18 GUIDInfoRecord Set/Delete, 14.2.5.5 GUIDInfo): the
// extra port GUIDs clients ask the SA for (SR-IOV virtual functions, mlx4's alias
// GUID service), kept as OpenSM 3.3.23 keeps them (osm_sa_guidinfo_record.c):
//
// - a port's alias table has GUIDCap entries in blocks of 8; index 0 is the port
//   GUID and can be neither set nor deleted;
// - Set of a block writes the GUIDs selected by the component mask; a zero GUID
//   asks the SA to choose: the one already at that index, else the one the SA
//   chose for that index before (kept even after a Delete), else a new one
//   (OpenIB OUI 0x001405 in bits 63-40, sm_assigned_guid in 39-32, a counter);
// - a GUID already in use (another port's GUID or alias, or the same GUID at
//   another index) is not taken: that index keeps what it held;
// - Delete of an alias that a multicast group holds as a member is refused.
//
// Tables changed by Set/Delete are queued until the SM programs them into the
// port (SubnSet GUIDInfo, take_pending()).
//
// The tables outlive a restart through the SA database file (sa/sa_db.hpp): its
// GUIDInfo lines go back in with restore() once a snapshot shows their ports, as
// OpenSM's load_guidinfo (osm_sa.c) puts them back after the first master sweep's
// discovery, and are queued for the SM like a Set.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

#include "sa/snapshot.hpp"

namespace ibsm::sa {

inline constexpr std::size_t kGuidsPerBlock = 8;  // GUIDInfo block (IBA 14.2.5.5)
using GuidBlock = std::array<Guid, kGuidsPerBlock>;

class AliasGuids {
 public:
  // The outcome of a Set or Delete: a status (0: done) and the block as the port
  // now holds it; `echo` when the port has no alias table and a Delete changes
  // nothing (OpenSM then answers with the request's record as it came).
  struct Outcome {
    std::uint16_t status = 0;
    GuidBlock block{};
    bool echo = false;
  };
  // A block the SM must write into a port with SubnSet(GUIDInfo), modifier = block.
  struct Pending {
    Guid port_guid = 0;
    std::uint8_t block = 0;
    GuidBlock guids{};
  };

  // Drops the tables of ports that left the fabric (OpenSM's drop manager), once
  // per snapshot generation. The GUIDs the SA chose for them stay reserved.
  void sync(const Snapshot& snap);

  // Set: `mask` bit i selects GUID i of `want` (index block*8+i).
  Outcome set(const Snapshot& snap, PortRef port, std::uint8_t block, std::uint8_t mask,
              const GuidBlock& want, std::uint8_t assigned_byte);
  // Delete: `mask` bit i selects index block*8+i; `held_by_group(guid)` tells
  // whether a multicast group holds the alias as a member.
  Outcome remove(const Snapshot& snap, PortRef port, std::uint8_t block, std::uint8_t mask,
                 const std::function<bool(Guid)>& held_by_group);

  // The alias table of a port (index 0 = port GUID), nullptr when none was set.
  const std::vector<Guid>* table(Guid port_guid) const;
  // The port GUID an alias belongs to, 0 when it is nobody's alias.
  Guid port_of(Guid alias) const;
  // The blocks changed since the last call, oldest first.
  std::vector<Pending> take_pending();

  // A block of a previous run's table (sa_db_file). The entries go in as a Set would
  // put them, with OpenSM's load_guidinfo rules: the port must be in `snap` and the
  // index below its GUIDCap, index 0 of block 0 (the port GUID) and zeros are passed
  // over, and a GUID already in use elsewhere stays out. Queues the block for the SM.
  struct Restored {
    std::size_t guids = 0;    // aliases now in the table
    std::size_t skipped = 0;  // non-zero aliases left out
  };
  Restored restore(const Snapshot& snap, Guid port_guid, std::uint8_t block,
                   const GuidBlock& guids);

  // Every alias table (index 0 = port GUID), by port GUID, for the database dump.
  const std::unordered_map<Guid, std::vector<Guid>>& tables() const { return tables_; }
  // Whether a table changed by Set/Delete, or was dropped with its port, since
  // clear_dirty(): the SA database must be written again (OpenSM's sa.dirty).
  bool dirty() const { return dirty_; }
  void clear_dirty() { dirty_ = false; }

 private:
  // True when `guid` is some port's GUID or alias (OpenSM's alias_port_guid_tbl).
  bool in_use(const Snapshot& snap, Guid guid) const;
  std::vector<Guid>& table_for(const Snapshot& snap, PortRef port);
  void queue(Guid port_guid, std::uint8_t block);
  // A GUID nobody uses, 0 when none turned up in OpenSM's number of tries, nullopt
  // when the counter ran out.
  std::optional<Guid> next_assigned(const Snapshot& snap, std::uint8_t assigned_byte);

  struct Owner {
    Guid port_guid = 0;
    std::size_t index = 0;
  };
  std::unordered_map<Guid, std::vector<Guid>> tables_;    // by port GUID
  std::unordered_map<Guid, Owner> owners_;                // by alias GUID
  std::unordered_map<Guid, std::vector<Guid>> assigned_;  // GUIDs the SA chose, by port and index
  std::vector<Pending> pending_;
  std::uint32_t counter_ = 0;
  std::uint64_t synced_generation_ = 0;
  bool dirty_ = false;
};

}  // namespace ibsm::sa
