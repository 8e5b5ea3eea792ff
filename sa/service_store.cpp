#include "sa/service_store.hpp"

#include <algorithm>
#include <cstring>

namespace ibsm::sa {

bool same_service_rid(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) {
  if (a.size() < service_field::kRidSize || b.size() < service_field::kRidSize) return false;
  return std::memcmp(a.data(), b.data(), service_field::kRidSize) == 0;
}

std::uint32_t service_lease(std::span<const std::uint8_t> record) {
  if (record.size() < service_field::kLease + 4) return kInfiniteLease;
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i)
    v = (v << 8) | record[service_field::kLease + i];
  return v;
}

namespace {

ServiceStore::Entry make_entry(const ServiceRecordBytes& record,
                               std::optional<Clock::Duration> remaining, Clock::TimePoint now) {
  ServiceStore::Entry e;
  e.record = record;
  e.infinite = !remaining.has_value();
  if (remaining) e.expires = now + *remaining;
  return e;
}

std::optional<Clock::Duration> lease_of(const ServiceRecordBytes& record) {
  const std::uint32_t lease = service_lease(record);
  if (lease == kInfiniteLease) return std::nullopt;
  return std::chrono::duration_cast<Clock::Duration>(std::chrono::seconds(lease));
}

}  // namespace

ServiceStore::PutResult ServiceStore::put(const ServiceRecordBytes& record, std::uint64_t owner,
                                          Clock::TimePoint now, Bounds bounds) {
  std::size_t held = 0;
  for (Entry& e : entries_) {
    if (same_service_rid(e.record, record)) {
      const std::uint64_t keep = e.owner;
      e = make_entry(record, lease_of(record), now);  // an update restarts the lease
      e.owner = keep;
      dirty_ = true;
      return {};
    }
    if (e.owner == owner) ++held;
  }
  const Admit a = admit(held, bounds.per_port, entries_.size(), bounds.total);
  if (a != Admit::kYes) return {a, false};
  Entry e = make_entry(record, lease_of(record), now);
  e.owner = owner;
  entries_.insert(entries_.begin(), e);
  dirty_ = true;
  return {Admit::kYes, true};
}

std::size_t ServiceStore::held_by(std::uint64_t owner) const {
  return static_cast<std::size_t>(std::count_if(entries_.begin(), entries_.end(),
                                                [&](const Entry& e) { return e.owner == owner; }));
}

std::optional<ServiceRecordBytes> ServiceStore::erase(std::span<const std::uint8_t> rid) {
  auto it = std::find_if(entries_.begin(), entries_.end(),
                         [&](const Entry& e) { return same_service_rid(e.record, rid); });
  if (it == entries_.end()) return std::nullopt;
  ServiceRecordBytes r = it->record;
  entries_.erase(it);
  dirty_ = true;
  return r;
}

const ServiceStore::Entry* ServiceStore::find(std::span<const std::uint8_t> rid) const {
  for (const Entry& e : entries_)
    if (same_service_rid(e.record, rid)) return &e;
  return nullptr;
}

bool ServiceStore::restore(const ServiceRecordBytes& record,
                           std::optional<Clock::Duration> remaining, Clock::TimePoint now) {
  if (find(record) != nullptr) return false;
  Entry e = make_entry(record, remaining, now);
  std::uint64_t gid_guid = 0;  // the ServiceGID's interface ID
  for (std::size_t i = 0; i < 8; ++i)
    gid_guid = (gid_guid << 8) | record[service_field::kGid + 8 + i];
  e.owner = gid_guid;
  entries_.push_back(e);  // keeps the file's order
  dirty_ = true;
  return true;
}

std::size_t ServiceStore::expire(Clock::TimePoint now) {
  const std::size_t before = entries_.size();
  std::erase_if(entries_, [&](const Entry& e) { return !e.infinite && e.expires <= now; });
  const std::size_t removed = before - entries_.size();
  if (removed != 0) dirty_ = true;
  return removed;
}

}  // namespace ibsm::sa
