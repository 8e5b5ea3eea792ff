// The opensm.conf keys the SA acts on, copied from conf::Options by the SM so
// that sa/ does not depend on conf/.
#pragma once

#include <cstdint>
#include <string>

namespace ibsm::sa {

struct SaSettings {
  std::uint64_t sa_key = 1;              // sa_key: requests carrying it are trusted
  std::uint8_t subnet_timeout = 18;      // subnet_timeout: PacketLifeTime of paths
  std::uint8_t packet_life_time = 0x12;  // packet_life_time (OpenSM's default)
  std::uint8_t sm_sl = 0;
  std::uint8_t max_rate_enum = 0;  // 0: no cap
  bool qos = false;
  bool allow_both_pkeys = false;
  bool use_mfttop = true;
  bool disable_multicast = false;
  // Multicast joins (sa/records/mcmember_join.cpp), OpenSM's keys and defaults.
  bool ipoib_mcgroup_creation_validation = true;
  bool mcgroup_join_validation = true;
  bool consolidate_ipv6_snm_req = false;
  bool use_original_extended_sa_rates_only = false;
  bool drop_event_subscriptions = false;
  bool enable_quirks = false;                  // enable_quirks: the Tavor PathRecord MTU limit
  std::uint8_t sm_assigned_guid = 0;           // sm_assigned_guid: byte 4 of SA-chosen alias GUIDs
  std::uint32_t transaction_timeout_ms = 200;  // Reports we send
  std::uint32_t transaction_retries = 3;
  std::uint8_t resp_time_value = 0x10;  // ClassPortInfo.RespTimeValue
  // What one port, and all ports together, may make the SA hold (sa/limits.hpp,
  // docs/sa.md "Limits"); ibsm's keys sa_max_*.
  std::uint32_t max_service_records_per_port = 1000;
  std::uint32_t max_service_records = 10000;
  std::uint32_t max_inform_info_per_port = 100;
  std::uint32_t max_inform_info = 10000;
  std::uint32_t max_mcast_memberships_per_port = 1000;
  std::uint32_t max_mcast_groups_per_port = 256;
  std::uint32_t max_mcast_memberships = 1000000;
  // The SA database (sa/sa_db.hpp): restored from sa_db_file at start, written
  // to dump_files_dir/opensm-sa.dump after sweeps when sa_db_dump is set.
  std::string sa_db_file;
  bool sa_db_dump = false;
  std::string dump_files_dir;
};

}  // namespace ibsm::sa
