// ServiceRecords registered through SA Set (IBA 15.2.5.14), with leases.
#pragma once

#include <vector>

#include "common/clock.hpp"

namespace ibsm::sa {

class ServiceStore {
 public:
  void expire(Clock::TimePoint now) { (void)now; }
};

}  // namespace ibsm::sa
