#include "sa/limits.hpp"

#include "sa/errors.hpp"

namespace ibsm::sa {

void note_refusal(const Logger& log, std::uint64_t& counter, std::string_view what, Admit why,
                  std::uint64_t port_guid, std::uint16_t lid, std::size_t limit) {
  ++counter;
  if (!log || (counter & (counter - 1)) != 0) return;  // 1, 2, 4, 8, ...
  if (why == Admit::kPortFull) {
    log->warn(
        "{}: port 0x{:016x} (LID {}) holds {} {}, its limit; request refused with "
        "ERR_NO_RESOURCES ({} refusals of {} so far)",
        format_error_id(kErrSaLimit), port_guid, lid, limit, what, counter, what);
  } else {
    log->warn(
        "{}: the SA holds {} {}, its limit; request from port 0x{:016x} (LID {}) refused "
        "with ERR_NO_RESOURCES ({} refusals of {} so far)",
        format_error_id(kErrSaLimit), limit, what, port_guid, lid, counter, what);
  }
}

}  // namespace ibsm::sa
