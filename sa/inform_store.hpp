// Event subscriptions (InformInfo Set, IBA 13.4.8.3, 15.2.5.12) and the Reports
// that deliver notices to subscribers.
#pragma once

#include "common/clock.hpp"
#include "mad/transport.hpp"
#include "sa/sa_mad.hpp"

namespace ibsm::sa {

class InformStore {
 public:
  void tick(Clock::TimePoint now) { (void)now; }
  // A ReportResp (or another response) arrived for a Report we sent.
  void on_response(const SaMad& response, const mad::MadAddress& from) {
    (void)response;
    (void)from;
  }
};

}  // namespace ibsm::sa
