// Multicast LIDs from 0xC000 up (IBA 4.1.1: 0xC000-0xFFFE are multicast), the
// lowest free one first. Reserving the MLIDs a previous run gave out before
// allocating new ones keeps them stable across reloads and restarts.
#pragma once

#include <cstdint>
#include <optional>
#include <set>

namespace ibsm::partitions {

inline constexpr std::uint16_t kFirstMlid = 0xC000;
inline constexpr std::uint16_t kLastMlid = 0xFFFE;

class MlidAllocator {
 public:
  // last: the subnet's top MLID (0xC000 + MulticastFDBCap - 1 of the smallest switch).
  explicit MlidAllocator(std::uint16_t last = kLastMlid) : last_(last) {}

  // False if out of range or already taken.
  bool reserve(std::uint16_t mlid);
  std::optional<std::uint16_t> allocate();
  void release(std::uint16_t mlid) { used_.erase(mlid); }
  bool in_use(std::uint16_t mlid) const { return used_.count(mlid) != 0; }
  std::uint16_t last() const { return last_; }

 private:
  std::uint16_t last_;
  std::set<std::uint16_t> used_;
};

}  // namespace ibsm::partitions
