#include "agent/ibping_mad.hpp"

#include <algorithm>

#include "agent/mad_header.hpp"

namespace ibsm::agent {
namespace {

constexpr std::size_t kOffRmpp = 24;  // 12 bytes, unused by ibping
constexpr std::size_t kOffOui = 37;   // 3 bytes

}  // namespace

bool is_ibping_request(std::span<const std::uint8_t> mad) {
  return mad.size() >= kVendorDataOffset && mad[kOffBaseVersion] == 1 &&
         mad[kOffClass] == kIbpingClass && mad[kOffMethod] == kMethodGet &&
         std::equal(kOpenIbOui.begin(), kOpenIbOui.end(), mad.begin() + kOffOui);
}

Mad ibping_reply(std::span<const std::uint8_t> request, const std::string& host) {
  Mad m{};
  std::copy_n(request.begin(), std::min(request.size(), kVendorDataOffset), m.begin());
  m[kOffClassVersion] = 1;
  m[kOffMethod] = kMethodGet | kResponseBit;
  m[kOffStatus] = m[kOffStatus + 1] = 0;
  std::fill_n(m.begin() + kOffRmpp, 12, 0);
  std::copy(kOpenIbOui.begin(), kOpenIbOui.end(), m.begin() + kOffOui);
  const std::size_t n = std::min(host.size(), kMadSize - kVendorDataOffset - 1);
  std::copy_n(host.begin(), n, m.begin() + kVendorDataOffset);
  return m;
}

std::string ibping_host_name(const std::string& host, const std::string& domain) {
  if (domain.empty() || domain == "(none)") return host;
  return host + "." + domain;
}

}  // namespace ibsm::agent
