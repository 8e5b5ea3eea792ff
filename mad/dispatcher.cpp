#include "mad/dispatcher.hpp"

#include "mad/errors.hpp"

namespace ibsm::mad {

bool MadDispatcher::dispatch(const IncomingMad& in) {
  const std::uint8_t mgmt_class = in.length >= 2 ? in.bytes[1] : 0;
  if (in.length >= 24 && handlers_[mgmt_class]) {
    handlers_[mgmt_class](in);
    return true;
  }
  ++unhandled_;
  // Powers of two: the first few and then ever fewer lines for a flood.
  if (log_ && (unhandled_ & (unhandled_ - 1)) == 0) {
    log_->warn(
        "{}: dropped MAD of class 0x{:02x} ({} bytes) from LID {}: no agent for it here "
        "({} so far)",
        format_error_id(kErrMalformedMad), mgmt_class, in.length, in.slid, unhandled_);
  }
  return false;
}

}  // namespace ibsm::mad
