// The SA database file (opensm.conf sa_db_file / -S to load at start, sa_db_dump
// to write opensm-sa.dump in dump_files_dir), in OpenSM's format (osm_sa.c), so a
// file OpenSM wrote is read by ibsm and the other way round. One record per line,
// a blank line after each:
//
//   GUIDInfo Record: base_guid=0x... lid=0x... block_num=0x... guid0=0x... .. guid7=0x...
//   MC Group 0x<mlid> [(well known)]: mgid=0x..:0x.. port_gid=.. qkey=.. mlid=.. mtu=..
//       tclass=.. pkey=.. rate=.. pkt_life=.. sl_flow_hop=.. scope_state=.. proxy_join=..
//   mcm_port: port_gid=0x..:0x.. scope_state=0x.. proxy_join=0x..   (members of the group above)
//   InformInfo Record: subscriber_gid=.. subscriber_enum=.. InformInfo: gid=.. lid_range_begin=..
//       lid_range_end=.. is_generic=.. subscribe=.. trap_type=.. trap_num=.. qpn_resp_time_val=..
//       node_type=.. rep_addr: lid=.. path_bits=.. static_rate=.. remote_qp=.. remote_qkey=..
//       pkey_ix=.. sl=..
//   Service Record: id=.. gid=..:.. pkey=.. lease=.. key=..:.. name='..' data8=..:.. data16=..:..
//       data32=..:.. data64=..:.. modified_time=.. lease_period=..
//
// Numbers are hexadecimal after "0x"; each key is looked for after the previous
// one on the line, as OpenSM's reader does. modified_time is wall-clock seconds
// and lease_period the seconds of lease left at that time. Lines starting with '#'
// are comments.
//
// Services and subscriptions go into their stores. GUIDInfo lines wait in
// SaDbKept until a snapshot shows their ports, then go into the alias tables
// (AliasGuids::restore, at the first publish: OpenSM's load_guidinfo runs after the
// first master sweep's discovery); the dump writes the alias tables as they stand,
// every block of each port's table as OpenSM does (sa_dump_one_port_guidinfo).
// Multicast groups belong to another capability: they are parsed (a malformed one
// is an error like any other) and kept in SaDbKept, and written back as they were
// read.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.hpp"
#include "sa/alias_guids.hpp"
#include "sa/inform_store.hpp"
#include "sa/service_store.hpp"
#include "sa/snapshot.hpp"

namespace ibsm::sa {

struct DbService {
  ServiceRecordBytes record{};
  std::uint32_t modified_time = 0;              // wall clock, seconds
  std::uint32_t lease_period = kInfiniteLease;  // seconds left at modified_time
};

struct DbGroupMember {
  Gid port_gid{};
  std::uint8_t scope_state = 0;
  std::uint8_t proxy_join = 0;
};

struct DbGroup {
  Lid mlid = 0;
  bool well_known = false;
  Gid mgid{};
  Gid port_gid{};
  std::uint32_t qkey = 0;
  Lid record_mlid = 0;
  std::uint8_t mtu = 0;
  std::uint8_t tclass = 0;
  std::uint16_t pkey = 0;
  std::uint8_t rate = 0;
  std::uint8_t pkt_life = 0;
  std::uint32_t sl_flow_hop = 0;
  std::uint8_t scope_state = 0;
  std::uint8_t proxy_join = 0;
  std::vector<DbGroupMember> members;
};

struct DbGuidInfo {
  Guid base_guid = 0;
  Lid lid = 0;
  std::uint8_t block = 0;
  std::array<Guid, 8> guids{};
};

// Records of the database the SA cannot place yet or another capability owns.
struct SaDbKept {
  std::vector<DbGuidInfo> guid_info;  // until a snapshot shows their ports
  std::vector<DbGroup> groups;
};

struct SaDb {
  SaDbKept kept;
  std::vector<Subscription> informs;
  std::vector<DbService> services;
};

struct SaDbParse {
  SaDb db;                            // everything read before the first error
  std::optional<std::string> error;   // "file:line: what" (reading stopped there)
  std::vector<std::string> warnings;  // "file:line: ..." lines that were skipped
};

// Reads a database file's text. Never throws; a malformed record stops the
// reading at its line (OpenSM's loader does the same), what came before is kept.
SaDbParse parse_sa_db(std::string_view text, std::string_view file_name);

// Writes the database in OpenSM's order: alias GUIDs, groups, subscriptions, services.
std::string format_sa_db(const SaDb& db);

// What is left of a lease written with `lease_period` seconds left at
// `modified_time`, at wall time `wall_now` (nullopt: infinite; zero: expired).
std::optional<Clock::Duration> remaining_lease(std::uint32_t modified_time,
                                               std::uint32_t lease_period, std::int64_t wall_now);

// The stores in the database's form, at `now` on the SA's clock = `wall_now`. The
// alias tables follow the GUIDInfo lines not restored yet, in OpenSM's port order
// (its port-GUID map, network-order GUIDs read as host integers); `snap` gives
// their LIDs (0 without one).
SaDb collect_sa_db(const ServiceStore& services, const InformStore& informs, const SaDbKept& kept,
                   const AliasGuids& aliases, const Snapshot* snap, Clock::TimePoint now,
                   std::int64_t wall_now);

struct SaDbRestored {
  std::size_t services = 0;
  std::size_t informs = 0;
  std::size_t groups = 0;
  std::size_t guid_info = 0;   // GUIDInfo blocks waiting for a snapshot
  std::size_t duplicates = 0;  // records already present (kept as they were)
};
// Puts what was read into the stores (GUIDInfo blocks into `kept`, see
// restore_alias_guids).
SaDbRestored restore_sa_db(const SaDb& db, ServiceStore& services, InformStore& informs,
                           SaDbKept& kept, Clock::TimePoint now, std::int64_t wall_now);

struct AliasesRestored {
  std::size_t blocks = 0;   // GUIDInfo blocks read
  std::size_t guids = 0;    // aliases in the tables
  std::size_t skipped = 0;  // aliases left out (port gone, beyond GUIDCap, GUID in use)
};
// Moves the kept GUIDInfo blocks into the alias tables of the ports `snap` has
// (AliasGuids::restore); `kept.guid_info` is empty afterwards.
AliasesRestored restore_alias_guids(SaDbKept& kept, AliasGuids& aliases, const Snapshot& snap);

}  // namespace ibsm::sa
