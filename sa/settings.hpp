// The opensm.conf keys the SA acts on, copied from conf::Options by the SM so
// that sa/ does not depend on conf/.
#pragma once

#include <cstdint>

namespace ibsm::sa {

struct SaSettings {
  std::uint64_t sa_key = 1;           // sa_key: requests carrying it are trusted
  std::uint8_t subnet_timeout = 18;   // subnet_timeout: PacketLifeTime of paths
  std::uint8_t packet_life_time = 0x12;  // packet_life_time (OpenSM's default)
  std::uint8_t sm_sl = 0;
  std::uint8_t max_rate_enum = 0;     // 0: no cap
  bool qos = false;
  bool allow_both_pkeys = false;
  bool use_mfttop = true;
  bool disable_multicast = false;
  bool use_original_extended_sa_rates_only = false;
  bool drop_event_subscriptions = false;
  std::uint32_t transaction_timeout_ms = 200;  // Reports we send
  std::uint32_t transaction_retries = 3;
  std::uint8_t resp_time_value = 0x10;  // ClassPortInfo.RespTimeValue
};

}  // namespace ibsm::sa
