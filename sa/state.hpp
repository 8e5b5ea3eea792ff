// The SA's own state, beside the snapshot: what clients registered (service
// records with leases, event subscriptions) and the Reports in flight.
#pragma once

#include "sa/inform_store.hpp"
#include "sa/service_store.hpp"

namespace ibsm::sa {

class SaState {
 public:
  ServiceStore services;
  InformStore informs;
};

}  // namespace ibsm::sa
