#include "sm/traps/trap_filter.hpp"

#include <array>

namespace ibsm::sm {
namespace {

// FNV-1a: the notice's bytes as the key of "the same trap" (OpenSM takes a CRC32).
std::uint32_t hash_notice(const mad::Notice& n) {
  std::array<std::uint8_t, mad::kSmpDataSize> bytes{};
  mad::Notice::encode_payload(n, mad::Payload(bytes));
  std::uint32_t h = 2166136261u;
  for (std::uint8_t b : bytes) {
    h ^= b;
    h *= 16777619u;
  }
  return h;
}

}  // namespace

bool is_port_error_trap(const mad::Notice& n) {
  return n.is_generic && n.trap_number >= 129 && n.trap_number <= 131;
}

TrapFilter::Verdict TrapFilter::admit(const mad::Notice& n, Lid source_lid, Clock::TimePoint now,
                                      bool babbling_port_policy) {
  Verdict v;
  const bool port_error = is_port_error_trap(n);
  Lid lid = source_lid;
  mad::PortNum port = 0;
  if (port_error) {
    // IBA 14.2.5.1 table 150: LIDADDR at details bytes 2-3, PORTNO at byte 4; the port
    // the trap is about, not the switch that forwarded it.
    lid = n.details_lid();
    port = n.details[4];
    v.port_lid = lid;
    v.port_num = port;
  }
  const std::uint64_t key =
      (std::uint64_t{port} << 48) | (std::uint64_t{lid} << 32) | hash_notice(n);

  if (++admitted_since_prune_ >= 1024) {
    admitted_since_prune_ = 0;
    std::erase_if(entries_, [now](const auto& kv) { return kv.second.expires <= now; });
  }
  Entry& e = entries_[key];
  if (e.expires <= now) e = Entry{};  // aged out: a fresh start
  v.repeats = e.count;
  auto aging = e.unhealthy ? Clock::Duration(kUnhealthyAging) : Clock::Duration(kAging);
  if (e.count >= kQuietAfter) {
    if (port_error) {
      if (babbling_port_policy && e.count >= kBabblingThreshold) {
        v.disable_port = true;
        v.ignore = true;
        entries_.erase(key);  // the port is going down; nothing more to count
        return v;
      }
      if (!e.unhealthy) {
        e.unhealthy = true;  // first time: one heavy sweep to look at it
        v.sweep = true;
      }
      aging = kUnhealthyAging;
    }
    v.ignore = !v.sweep;
  }
  ++e.count;
  e.expires = now + aging;
  return v;
}

std::size_t TrapFilter::unhealthy_ports() const {
  std::size_t n = 0;
  for (const auto& [key, e] : entries_)
    n += e.unhealthy ? 1 : 0;
  return n;
}

}  // namespace ibsm::sm
