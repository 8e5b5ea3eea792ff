#include "agent/ibping_mad.hpp"

#include <algorithm>

#include "wire/mad_header.hpp"

namespace ibsm::agent {
namespace {

// The MAD common header (IBA 13.4.3) and the RMPP header after it, unused by ibping.
using wire::kOffBaseVersion, wire::kOffClass, wire::kOffClassVersion, wire::kOffMethod,
    wire::kOffStatus;
constexpr std::size_t kOffOui = 37;  // 3 bytes

}  // namespace

bool is_ibping_request(std::span<const std::uint8_t> mad) {
  return mad.size() >= kVendorDataOffset && mad[kOffBaseVersion] == wire::kBaseVersion &&
         mad[kOffClass] == kIbpingClass && mad[kOffMethod] == wire::method::kGet &&
         std::equal(kOpenIbOui.begin(), kOpenIbOui.end(), mad.begin() + kOffOui);
}

Mad ibping_reply(std::span<const std::uint8_t> request, const std::string& host) {
  Mad m{};
  std::copy_n(request.begin(), std::min(request.size(), kVendorDataOffset), m.begin());
  m[kOffClassVersion] = 1;
  m[kOffMethod] = wire::method::kGetResp;
  m[kOffStatus] = m[kOffStatus + 1] = 0;
  std::fill_n(m.begin() + wire::kOffRmppHeader, wire::kRmppHeaderSize, 0);
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
