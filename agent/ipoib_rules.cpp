#include "agent/ipoib_rules.hpp"

#include <cstdio>
#include <vector>

namespace ibsm::agent {

std::string child_name(const std::string& parent, std::uint16_t pkey) {
  char buf[8];
  std::snprintf(buf, sizeof buf, ".%04x", normalize_pkey(pkey));
  return parent + buf;
}

static std::vector<int> hw_bytes(const std::string& address) {
  std::vector<int> bytes;
  unsigned value = 0;
  int digits = 0;
  for (char c : address + ":") {
    if (c == ':') {
      if (digits) bytes.push_back(static_cast<int>(value));
      value = 0;
      digits = 0;
      continue;
    }
    int d = (c >= '0' && c <= '9')   ? c - '0'
            : (c >= 'a' && c <= 'f') ? c - 'a' + 10
            : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                     : -1;
    if (d < 0) return {};
    value = value * 16 + static_cast<unsigned>(d);
    ++digits;
  }
  return bytes;
}

bool hw_address_supports_connected(const std::string& address) {
  auto b = hw_bytes(address);
  return b.size() == 20 && (b[0] & 0x80) != 0;
}

std::uint64_t hw_address_guid(const std::string& address) {
  auto b = hw_bytes(address);
  if (b.size() != 20) return 0;
  std::uint64_t guid = 0;
  for (int i = 12; i < 20; ++i)
    guid = (guid << 8) | static_cast<std::uint64_t>(b[i]);
  return guid;
}

std::string format_pkey(std::uint16_t pkey) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%04x", pkey);
  return buf;
}

std::string format_guid(std::uint64_t guid) {
  char buf[20];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(guid));
  return buf;
}

}  // namespace ibsm::agent
