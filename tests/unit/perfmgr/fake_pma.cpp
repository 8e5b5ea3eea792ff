#include "tests/unit/perfmgr/fake_pma.hpp"

namespace ibsm::perfmgr::test {

std::size_t FakePmaFabric::count(std::uint16_t attr, std::uint8_t method) const {
  std::size_t n = 0;
  for (const Sent& s : sent)
    n += s.attr == attr && s.method == method ? 1 : 0;
  return n;
}

std::optional<mad::IncomingMad> FakePmaFabric::receive(std::chrono::milliseconds max_wait) {
  if (inbox_.empty() || inbox_.begin()->first > clock_.now() + max_wait) {
    clock_.advance(max_wait);
    return std::nullopt;
  }
  auto it = inbox_.begin();
  if (it->first > clock_.now()) clock_.set(it->first);
  mad::IncomingMad in = std::move(it->second);
  inbox_.erase(it);
  return in;
}

Status FakePmaFabric::send_gsi(std::span<const std::uint8_t> mad, const mad::MadAddress& to,
                               std::uint32_t) {
  if (mad.size() != kMadSize || mad[1] != kClassPerfMgt)
    return fail(mad::kErrSendFailed, "not a PerfMgt MAD");
  const std::uint8_t method = mad[3];
  const auto attr = static_cast<std::uint16_t>(mad[16] << 8 | mad[17]);
  auto data = mad.subspan(kPmDataOffset, kPmDataSize);
  const auto port = static_cast<unsigned>(data[1]);
  const auto select = static_cast<std::uint16_t>(data[2] << 8 | data[3]);
  sent.push_back(
      {to.lid, to.qpn, method, attr, port, select,
       static_cast<std::uint32_t>(mad[12] << 24 | mad[13] << 16 | mad[14] << 8 | mad[15])});

  auto found = pmas_.find({to.lid, to.qpn});
  if (found == pmas_.end()) return {};  // nobody there: no answer
  FakePma& pma = found->second;
  if (pma.fault == PmaFault::kSilent) return {};

  std::array<std::uint8_t, kMadSize> out{};
  std::copy(mad.begin(), mad.end(), out.begin());
  out[3] = kMethodGetResp;
  std::span<std::uint8_t> odata(out.data() + kPmDataOffset, kPmDataSize);
  std::uint16_t status = 0;
  if (attr == static_cast<std::uint16_t>(PmAttr::kClassPortInfo)) {
    ClassPortInfo cpi;
    cpi.base_version = 1;
    cpi.class_version = 1;
    cpi.capability_mask = pma.cap_mask;
    if (pma.redirect) {
      cpi = *pma.redirect;
      status = kStatusRedirect;
    }
    encode_attribute(cpi, odata);
  } else if (attr == static_cast<std::uint16_t>(PmAttr::kPortCounters) ||
             attr == static_cast<std::uint16_t>(PmAttr::kPortCountersExtended)) {
    auto p = pma.ports.find(port);
    if (p == pma.ports.end()) {
      status = 0x001C;  // invalid field: no such port
    } else if (attr == static_cast<std::uint16_t>(PmAttr::kPortCounters)) {
      PortCounters& c = p->second.pc;
      if (method == kMethodSet) {
        // CounterSelect bit i clears the i-th counter after CounterSelect (IBA 16.1.3.5).
        auto req = decode_attribute<PortCounters>(data);
        const std::uint16_t s = static_cast<std::uint16_t>(req->counter_select);
        std::uint64_t* fields[] = {&c.symbol_error_counter,
                                   &c.link_error_recovery_counter,
                                   &c.link_downed_counter,
                                   &c.port_rcv_errors,
                                   &c.port_rcv_remote_physical_errors,
                                   &c.port_rcv_switch_relay_errors,
                                   &c.port_xmit_discards,
                                   &c.port_xmit_constraint_errors,
                                   &c.port_rcv_constraint_errors,
                                   &c.local_link_integrity_errors,
                                   &c.excessive_buffer_overrun_errors,
                                   &c.vl15_dropped,
                                   &c.port_xmit_data,
                                   &c.port_rcv_data,
                                   &c.port_xmit_pkts,
                                   &c.port_rcv_pkts};
        for (unsigned i = 0; i < 16; ++i)
          if ((s >> i) & 1u) *fields[i] = 0;
        if (req->counter_select2 & 1u) c.port_xmit_wait = 0;
      }
      PortCounters reply = c;
      reply.port_select = port;
      reply.counter_select = select;
      encode_attribute(reply, odata);
    } else {
      PortCountersExtended& c = p->second.pce;
      if (method == kMethodSet) c = PortCountersExtended{};
      PortCountersExtended reply = c;
      reply.port_select = port;
      encode_attribute(reply, odata);
    }
  }
  std::size_t length = kMadSize;
  switch (pma.fault) {
    case PmaFault::kBadStatus:
      status = 0x000C;
      break;
    case PmaFault::kTruncated:
      length = 100;
      break;
    case PmaFault::kOversized:
      length = 300;
      break;
    case PmaFault::kWrongAttr:
      out[17] ^= 0x40;
      break;
    case PmaFault::kWrongPort:
      odata[1] = static_cast<std::uint8_t>(port + 1);
      break;
    default:
      break;
  }
  out[4] = static_cast<std::uint8_t>(status >> 8);
  out[5] = static_cast<std::uint8_t>(status);
  mad::IncomingMad in;
  std::copy(out.begin(), out.end(), in.bytes.begin());
  in.length = length;
  if (length > kMadSize) in.tail.assign(length - kMadSize, 0);
  in.slid = to.lid;
  in.sqpn = to.qpn;
  inbox_.emplace(clock_.now() + latency, in);
  return {};
}

}  // namespace ibsm::perfmgr::test
