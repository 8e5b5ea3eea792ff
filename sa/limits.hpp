// Bounds on what one port can make the SA hold: ServiceRecords, InformInfo
// subscriptions, multicast memberships and the groups it created; and bounds on
// the totals, so that many ports together cannot exhaust the SM's memory either.
//
// A request over a bound is refused with ERR_NO_RESOURCES (0x0100, IBA 15.2.1.1
// table 186), the status OpenSM answers when it cannot allocate a service record,
// a subscription or a membership (osm_sa_service_record.c, osm_sa_informinfo.c,
// osm_sa_mcmember_record.c); OpenSM itself has no bound but memory. Each refusal
// is counted, and logged with IBSM-7007 naming the port, on the 1st, 2nd, 4th,
// 8th, ... refusal of its kind (a flood stays quiet). Other requests, from the
// same port or others, are answered as before.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/log.hpp"

namespace ibsm::sa {

// What a request would add, against what is held: a new item is admitted when
// the port holds fewer than `per_port` and the SA fewer than `total`.
enum class Admit : std::uint8_t { kYes, kPortFull, kTotalFull };

constexpr Admit admit(std::size_t port_held, std::size_t per_port, std::size_t total_held,
                      std::size_t total) {
  if (port_held >= per_port) return Admit::kPortFull;
  if (total_held >= total) return Admit::kTotalFull;
  return Admit::kYes;
}

// Refusals so far, per kind.
struct LimitCounters {
  std::uint64_t service_records = 0;
  std::uint64_t inform_infos = 0;
  std::uint64_t mcast_memberships = 0;
  std::uint64_t mcast_groups = 0;
};

// Counts a refusal in `counter` and logs it (IBSM-7007) when the count is a
// power of two. `what` names the resource ("ServiceRecords"), `limit` the bound hit.
void note_refusal(const Logger& log, std::uint64_t& counter, std::string_view what, Admit why,
                  std::uint64_t port_guid, std::uint16_t lid, std::size_t limit);

}  // namespace ibsm::sa
