// FakeFabric's Congestion Control agents (class 0x21): see FakeCc in fake_fabric.hpp.
#include <algorithm>

#include "tests/fake/fake_fabric.hpp"
#include "tests/fake/wire_bytes.hpp"

namespace ibsm::fake {
namespace {

constexpr std::uint8_t kClassCc = 0x21;

std::uint64_t get_be(std::span<const std::uint8_t> b, std::size_t at, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i)
    v = v << 8 | b[at + i];
  return v;
}

}  // namespace

Status FakeFabric::register_gsi_class(std::uint8_t mgmt_class, std::uint8_t class_version) {
  if (mgmt_class != kClassCc || class_version != 2)
    return MadTransport::register_gsi_class(mgmt_class, class_version);
  cc_registered_ = true;
  return {};
}

Status FakeFabric::send_gsi(std::span<const std::uint8_t> mad, const mad::MadAddress& to,
                            std::uint32_t timeout_ms) {
  if (mad.size() < 2 || mad[1] != kClassCc || !cc_registered_)
    return MadTransport::send_gsi(mad, to, timeout_ms);
  if (mad.size() != 256) return fail(mad::kErrSendFailed, "CC MAD is not 256 bytes");
  ++cc_requests_;
  const std::uint8_t method = mad[3];
  if (method != 0x01 && method != 0x02) return {};  // not a request: nothing answers
  const auto arrival = route_lid(to.lid);
  if (!arrival) {
    ++stats_.lost;
    return {};
  }
  FakeNode& n = nodes_[arrival->node];
  if (n.gone || n.faults.silent) {
    ++stats_.lost;
    return {};
  }
  mad::IncomingMad in;
  std::copy(mad.begin(), mad.end(), in.bytes.begin());
  in.length = 256;
  in.bytes[3] = 0x81;  // GetResp
  in.slid = port_info(arrival->node, arrival->port).lid;
  in.sqpn = 1;
  // The kernel owns TID bits 32-63 and hands them back in the response.
  put16(in.bytes.data() + 8, static_cast<std::uint16_t>(options_.hi_tid >> 16));
  put16(in.bytes.data() + 10, static_cast<std::uint16_t>(options_.hi_tid));

  auto agent = n.cc.find(arrival->port);
  if (agent == n.cc.end()) {
    put16(in.bytes.data() + 4, 0x000c);  // the MAD layer: method/attribute unsupported
    deliver(std::move(in), n.faults.latency);
    return {};
  }
  FakeCc& cc = agent->second;
  std::array<std::uint8_t, 256> copy{};
  std::copy(mad.begin(), mad.end(), copy.begin());
  cc.received.push_back(copy);
  if (cc.silent || get_be(mad, 24, 8) != cc.cc_key) {
    ++stats_.lost;
    return {};
  }
  const auto attr = static_cast<std::uint16_t>(get_be(mad, 16, 2));
  const auto mod = static_cast<std::uint32_t>(get_be(mad, 20, 4));
  std::array<std::uint8_t, 192> data{};
  std::copy(mad.begin() + 64, mad.end(), data.begin());
  const std::uint16_t status = cc.status.value_or(0);
  if (status == 0 && method == 0x02) cc.held[{attr, mod}] = data;
  if (method == 0x01) {
    auto held = cc.held.find({attr, mod});
    std::array<std::uint8_t, 192> answer{};
    if (held != cc.held.end()) answer = held->second;
    std::copy(answer.begin(), answer.end(), in.bytes.begin() + 64);
  }
  put16(in.bytes.data() + 4, status);
  if (cc.wrong_attribute) put16(in.bytes.data() + 16, static_cast<std::uint16_t>(attr + 1));
  if (cc.short_answer) in.length = 40;
  ++n.answered;
  deliver(std::move(in), n.faults.latency);
  return {};
}

}  // namespace ibsm::fake
