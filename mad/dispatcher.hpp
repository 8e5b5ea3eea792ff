// MadDispatcher: hands each MAD that arrives on the SM's port to the handler of
// its management class (IBA 13.4.4). SmpClient owns one and keeps SMPs for itself;
// the Subnet Administrator registers class 0x03 here, and later classes do the
// same. A MAD of a class nobody handles is counted and dropped with a
// rate-limited log line, never fatal.
#pragma once

#include <array>
#include <cstdint>
#include <functional>

#include "common/log.hpp"
#include "mad/transport.hpp"

namespace ibsm::mad {

class MadDispatcher {
 public:
  using Handler = std::function<void(const IncomingMad&)>;

  void set_handler(std::uint8_t mgmt_class, Handler h) { handlers_[mgmt_class] = std::move(h); }
  void set_logger(Logger log) { log_ = std::move(log); }

  // Returns false when no handler took the MAD (it was counted as unhandled).
  bool dispatch(const IncomingMad& in);

  std::uint64_t unhandled() const { return unhandled_; }

 private:
  std::array<Handler, 256> handlers_{};
  Logger log_;
  std::uint64_t unhandled_ = 0;
};

}  // namespace ibsm::mad
