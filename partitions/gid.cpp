#include "partitions/gid.hpp"

#include <arpa/inet.h>

#include <cstring>

namespace ibsm::partitions {

std::optional<Gid> parse_gid(std::string_view text) {
  if (text.size() >= INET6_ADDRSTRLEN) return std::nullopt;
  char buf[INET6_ADDRSTRLEN] = {};
  std::memcpy(buf, text.data(), text.size());
  Gid gid{};
  if (inet_pton(AF_INET6, buf, gid.data()) != 1) return std::nullopt;
  return gid;
}

std::string format_gid(const Gid& gid) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (!inet_ntop(AF_INET6, gid.data(), buf, sizeof buf)) return "?";
  return buf;
}

bool gid_is_ip(const Gid& gid) {
  return (gid[2] == 0x40 || gid[2] == 0x60) && gid[3] == 0x1b;
}

std::uint16_t gid_pkey(const Gid& gid) {
  return static_cast<std::uint16_t>((gid[4] << 8) | gid[5]);
}

void gid_set_pkey(Gid& gid, std::uint16_t pkey) {
  gid[4] = static_cast<std::uint8_t>(pkey >> 8);
  gid[5] = static_cast<std::uint8_t>(pkey & 0xff);
}

void gid_set_scope(Gid& gid, std::uint8_t scope) {
  gid[1] = static_cast<std::uint8_t>((gid[1] & 0xf0) | (scope & 0x0f));
}

Gid ipoib_broadcast_mgid(std::uint16_t pkey_full, std::uint8_t scope) {
  Gid g{0xff, 0x12, 0x40, 0x1b, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
  gid_set_pkey(g, pkey_full);
  gid_set_scope(g, scope);
  return g;
}

}  // namespace ibsm::partitions
