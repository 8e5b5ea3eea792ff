#include "partitions/mlid_allocator.hpp"

namespace ibsm::partitions {

bool MlidAllocator::reserve(std::uint16_t mlid) {
  if (mlid < kFirstMlid || mlid > last_) return false;
  return used_.insert(mlid).second;
}

std::optional<std::uint16_t> MlidAllocator::allocate() {
  for (std::uint32_t m = kFirstMlid; m <= last_; ++m) {
    if (!used_.count(static_cast<std::uint16_t>(m))) {
      used_.insert(static_cast<std::uint16_t>(m));
      return static_cast<std::uint16_t>(m);
    }
  }
  return std::nullopt;
}

}  // namespace ibsm::partitions
