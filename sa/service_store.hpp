// ServiceRecords registered through SA Set (IBA 15.2.5.14), with leases.
//
// Records are kept as their 176 wire bytes, newest first (OpenSM's list order,
// which is also the order GetTable answers and the SA database dump use). A
// record is identified by its RID: ServiceID, ServiceGID and ServiceP_Key
// (15.2.5.14.2), i.e. its first 26 bytes as sent. Leases count seconds on the
// injected clock; ServiceLease 0xFFFFFFFF never expires.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "common/clock.hpp"
#include "sa/limits.hpp"

namespace ibsm::sa {

inline constexpr std::size_t kServiceRecordSize = 176;
using ServiceRecordBytes = std::array<std::uint8_t, kServiceRecordSize>;

// Byte offsets of the ServiceRecord fields (IBA 15.2.5.14 table 204).
namespace service_field {
inline constexpr std::size_t kId = 0;
inline constexpr std::size_t kGid = 8;
inline constexpr std::size_t kPKey = 24;
inline constexpr std::size_t kLease = 28;
inline constexpr std::size_t kKey = 32;
inline constexpr std::size_t kName = 48;
inline constexpr std::size_t kData8 = 112;
inline constexpr std::size_t kData16 = 128;
inline constexpr std::size_t kData32 = 144;
inline constexpr std::size_t kData64 = 160;
inline constexpr std::size_t kRidSize = 26;  // ID + GID + P_Key
}  // namespace service_field

inline constexpr std::uint32_t kInfiniteLease = 0xFFFFFFFF;

// IBA 15.2.5.14.2: two records are the same service when ServiceID,
// ServiceGID and ServiceP_Key are equal.
bool same_service_rid(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b);

// The ServiceLease field (seconds; kInfiniteLease: never expires).
std::uint32_t service_lease(std::span<const std::uint8_t> record);

class ServiceStore {
 public:
  struct Entry {
    ServiceRecordBytes record{};
    bool infinite = true;
    Clock::TimePoint expires{};  // when !infinite
    // The port GUID that registered it: what it counts against (sa/limits.hpp).
    // A record read back from the SA database counts against its ServiceGID's port.
    std::uint64_t owner = 0;
  };

  struct Bounds {
    std::size_t per_port = SIZE_MAX;
    std::size_t total = SIZE_MAX;
  };
  struct PutResult {
    Admit admit = Admit::kYes;  // kYes: stored; else refused, nothing changed
    bool added = false;         // a new RID (not an update)
  };

  // Registers `record` for port `owner`, or replaces the one with its RID (an
  // update: it keeps its owner and counts once); the lease in the record starts
  // now. A new RID is refused when `owner` already holds `bounds.per_port`
  // records or the store `bounds.total`.
  PutResult put(const ServiceRecordBytes& record, std::uint64_t owner, Clock::TimePoint now,
                Bounds bounds);
  // Records `owner` holds.
  std::size_t held_by(std::uint64_t owner) const;
  // Removes the record with the RID of `rid` (at least 26 bytes) and returns it.
  std::optional<ServiceRecordBytes> erase(std::span<const std::uint8_t> rid);
  const Entry* find(std::span<const std::uint8_t> rid) const;
  // A record read back from the SA database, with what was left of its lease
  // (nullopt: infinite). A RID already present is kept as it is, as OpenSM's
  // loader does. Returns false then.
  bool restore(const ServiceRecordBytes& record, std::optional<Clock::Duration> remaining,
               Clock::TimePoint now);
  // Drops the records whose lease has run out; returns how many.
  std::size_t expire(Clock::TimePoint now);

  const std::vector<Entry>& entries() const { return entries_; }
  std::size_t size() const { return entries_.size(); }
  // Changed since the last clear_dirty() (what the SA database dump waits for).
  bool dirty() const { return dirty_; }
  void clear_dirty() { dirty_ = false; }

 private:
  std::vector<Entry> entries_;  // newest first
  bool dirty_ = false;
};

}  // namespace ibsm::sa
