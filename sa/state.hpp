// The SA's own state, beside the snapshot: what clients registered (service
// records with leases, event subscriptions) and the Reports in flight.
#pragma once

#include "sa/alias_guids.hpp"
#include "sa/inform_store.hpp"
#include "sa/limits.hpp"
#include "sa/mcast/group_store.hpp"
#include "sa/sa_db.hpp"
#include "sa/service_store.hpp"

namespace ibsm::sa {

class SaState {
 public:
  ServiceStore services;
  InformStore informs;
  SaDbKept db_kept;       // SA database records other capabilities own (sa/sa_db.hpp)
  AliasGuids aliases;     // GUIDInfoRecord Set/Delete (sa/records/guid_info_record.cpp)
  McGroupStore mcast;     // multicast groups and members (sa/mcast/group_store.hpp)
  LimitCounters refused;  // requests refused at a limit (sa/limits.hpp)
};

}  // namespace ibsm::sa
