#include "sm/traps/security_trap.hpp"

#include <cstdio>

namespace ibsm::sm {
namespace {

using Details = std::array<std::uint8_t, mad::Notice::kDetailsSize>;

std::uint32_t be(const Details& d, std::size_t at, std::size_t bytes) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < bytes; ++i)
    v = (v << 8) | d[at + i];
  return v;
}

std::uint64_t be64(const Details& d, std::size_t at) {
  return (std::uint64_t{be(d, at, 4)} << 32) | be(d, at + 4, 4);
}

// A GID as IPv6 text (ibv_devinfo / saquery style: eight groups of four hex digits).
std::string gid_text(const Details& d, std::size_t at) {
  std::string s;
  char buf[8];
  for (std::size_t i = 0; i < 16; i += 2) {
    std::snprintf(buf, sizeof buf, "%s%04x", i ? ":" : "", be(d, at + i, 2));
    s += buf;
  }
  return s;
}

// Traps 257/258 (and 259 after its own two bytes): LID1, LID2, the key, SL and QP1 in
// one word (SL in the top 4 bits), QP2, GID1, GID2.
std::string key_violation(const Details& d, const char* key_name, std::uint32_t key,
                          std::size_t qp_at) {
  const std::uint32_t qp1 = be(d, qp_at, 4);
  const std::uint32_t qp2 = be(d, qp_at + 4, 4);
  char buf[160];
  std::snprintf(buf, sizeof buf, "LID1 %u LID2 %u %s 0x%x SL %u QP1 0x%x QP2 0x%x", be(d, 2, 2),
                be(d, 4, 2), key_name, key, qp1 >> 28, qp1 & 0xFFFFFF, qp2 & 0xFFFFFF);
  return std::string(buf) + " GID1 " + gid_text(d, qp_at + 8) + " GID2 " + gid_text(d, qp_at + 24);
}

}  // namespace

bool is_security_trap(const mad::Notice& n) {
  return n.is_generic && n.trap_number >= 256 && n.trap_number <= 259;
}

std::optional<std::string> describe_security_trap(const mad::Notice& n) {
  if (!is_security_trap(n)) return std::nullopt;
  const Details& d = n.details;
  char buf[200];
  switch (n.trap_number) {
    case 256: {
      // Bytes 2-3 LIDADDR, 4-5 DRSLID, 6 Method, 8-9 AttributeID, 10-13 AttributeModifier,
      // 14-21 M_Key, byte 22 bit 7 DRNotice (the offending SMP was directed-route).
      const bool directed = (d[22] & 0x80) != 0;
      std::snprintf(buf, sizeof buf,
                    "Bad M_Key (trap 256) from port LID %u: requester LID %u%s, method 0x%02x, "
                    "attribute 0x%04x, modifier 0x%08x, M_Key 0x%016llx",
                    n.issuer_lid, be(d, 2, 2), directed ? " (directed route)" : "", d[6],
                    be(d, 8, 2), be(d, 10, 4), static_cast<unsigned long long>(be64(d, 14)));
      return std::string(buf);
    }
    case 257:
    case 258: {
      const bool qkey = n.trap_number == 258;
      std::snprintf(buf, sizeof buf,
                    "Bad %s (trap %u) from port LID %u: ", qkey ? "Q_Key" : "P_Key", n.trap_number,
                    n.issuer_lid);
      return std::string(buf) + key_violation(d, qkey ? "Q_Key" : "P_Key", be(d, 6, 4), 10);
    }
    default: {  // 259: DataValid, LID1, LID2, P_Key (16 bits), SL/QP1, QP2, GIDs, SwLID, port
      std::snprintf(buf, sizeof buf,
                    "Bad P_Key at switch port (trap 259) from LID %u: switch LID %u port %u, ",
                    n.issuer_lid, be(d, 48, 2), d[50]);
      return std::string(buf) + key_violation(d, "P_Key", be(d, 6, 2), 8);
    }
  }
}

bool SecurityTrapLog::admit(std::uint16_t issuer, std::uint16_t trap, Clock::TimePoint now,
                            std::uint64_t& held_back) {
  ++total_;
  Entry& e = entries_[{issuer, trap}];
  if (e.logged && now - e.last < interval_) {
    ++e.held_back;
    return false;
  }
  held_back = e.held_back;
  e = Entry{now, 0, true};
  return true;
}

}  // namespace ibsm::sm
