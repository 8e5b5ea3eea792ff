// Validation rules and table-shaped payload codecs of the SMP attributes.
#include <cstdio>

#include "common/display_text.hpp"
#include "mad/attr/forwarding_table.hpp"
#include "mad/attr/node_description.hpp"
#include "mad/attr/node_info.hpp"
#include "mad/attr/notice.hpp"
#include "mad/attr/pkey_table.hpp"
#include "mad/attr/port_info.hpp"

namespace ibsm::mad {

Status NodeInfo::validate(const NodeInfo& n) {
  auto bad = [](const std::string& why) { return fail(kErrInvalidAttribute, "NodeInfo: " + why); };
  if (n.node_type != NodeType::kCa && n.node_type != NodeType::kSwitch &&
      n.node_type != NodeType::kRouter) {
    return bad("invalid NodeType " + std::to_string(static_cast<unsigned>(n.node_type)));
  }
  if (n.num_ports == 0 || n.num_ports == 255) {
    return bad("invalid NumPorts " + std::to_string(n.num_ports));
  }
  if (n.node_guid == 0 || n.port_guid == 0) return bad("zero NodeGUID or PortGUID");
  if (n.node_type != NodeType::kSwitch &&
      (n.local_port_num == 0 || n.local_port_num > n.num_ports)) {
    return bad("LocalPortNum " + std::to_string(n.local_port_num) + " outside 1.." +
               std::to_string(n.num_ports));
  }
  if (n.node_type == NodeType::kSwitch && n.local_port_num > n.num_ports) {
    return bad("switch LocalPortNum " + std::to_string(n.local_port_num) + " above NumPorts");
  }
  return {};
}

Status PortInfo::validate(const PortInfo& p) {
  auto state = static_cast<unsigned>(p.port_state);
  if (state < 1 || state > 5) {  // 5 = ActiveDefer (IBA 1.3)
    return fail(kErrInvalidAttribute, "PortInfo: invalid PortState " + std::to_string(state));
  }
  if (p.lmc > 7) {
    return fail(kErrInvalidAttribute, "PortInfo: invalid LMC " + std::to_string(p.lmc));
  }
  return {};
}

void NodeDescription::encode_payload(const NodeDescription& d, Payload out) {
  const std::size_t n = std::min(d.text.size(), kSmpDataSize);
  std::memcpy(out.data(), d.text.data(), n);
}

NodeDescription NodeDescription::decode_payload(ConstPayload in) {
  // Display text, once, here where it enters: the SA, logs, dumps, ctl and /metrics
  // all show this (common/display_text.hpp).
  return NodeDescription{
      text::display_text({reinterpret_cast<const char*>(in.data()), in.size()}, kSmpDataSize)};
}

void LftBlock::encode_payload(const LftBlock& b, Payload out) {
  std::copy(b.ports.begin(), b.ports.end(), out.begin());
}

LftBlock LftBlock::decode_payload(ConstPayload in) {
  LftBlock b;
  std::copy(in.begin(), in.end(), b.ports.begin());
  return b;
}

std::string LftBlock::describe(const LftBlock& b) {
  std::string s;
  char buf[8];
  for (std::size_t i = 0; i < kEntries; ++i) {
    std::snprintf(buf, sizeof buf, "%3u%c", b.ports[i], (i % 16 == 15) ? '\n' : ' ');
    s += buf;
  }
  return s;
}

void PKeyBlock::encode_payload(const PKeyBlock& b, Payload out) {
  for (std::size_t i = 0; i < kEntries; ++i) {
    out[2 * i] = static_cast<std::uint8_t>(b.pkeys[i] >> 8);
    out[2 * i + 1] = static_cast<std::uint8_t>(b.pkeys[i] & 0xff);
  }
}

PKeyBlock PKeyBlock::decode_payload(ConstPayload in) {
  PKeyBlock b;
  for (std::size_t i = 0; i < kEntries; ++i) {
    b.pkeys[i] = static_cast<std::uint16_t>((in[2 * i] << 8) | in[2 * i + 1]);
  }
  return b;
}

std::string PKeyBlock::describe(const PKeyBlock& b) {
  std::string s;
  char buf[16];
  for (std::size_t i = 0; i < kEntries; ++i) {
    std::snprintf(buf, sizeof buf, "0x%04x%c", b.pkeys[i], (i % 8 == 7) ? '\n' : ' ');
    s += buf;
  }
  return s;
}

void Notice::encode_payload(const Notice& n, Payload out) {
  mad_set_field(out.data(), 0, IB_NOTICE_IS_GENERIC_F, n.is_generic ? 1 : 0);
  mad_set_field(out.data(), 0, IB_NOTICE_TYPE_F, n.type);
  mad_set_field(out.data(), 0, IB_NOTICE_PRODUCER_F, n.producer_type);
  mad_set_field(out.data(), 0, IB_NOTICE_TRAP_NUMBER_F, n.trap_number);
  mad_set_field(out.data(), 0, IB_NOTICE_ISSUER_LID_F, n.issuer_lid);
  mad_set_field(out.data(), 0, IB_NOTICE_TOGGLE_F, n.toggle ? 1 : 0);
  mad_set_field(out.data(), 0, IB_NOTICE_COUNT_F, n.count);
  std::copy(n.details.begin(), n.details.end(), out.begin() + kDetailsOffset);
}

Notice Notice::decode_payload(ConstPayload in) {
  Notice n;
  void* p = detail::raw(in);
  n.is_generic = mad_get_field(p, 0, IB_NOTICE_IS_GENERIC_F) != 0;
  n.type = static_cast<std::uint8_t>(mad_get_field(p, 0, IB_NOTICE_TYPE_F));
  n.producer_type = mad_get_field(p, 0, IB_NOTICE_PRODUCER_F);
  n.trap_number = static_cast<std::uint16_t>(mad_get_field(p, 0, IB_NOTICE_TRAP_NUMBER_F));
  n.issuer_lid = static_cast<Lid>(mad_get_field(p, 0, IB_NOTICE_ISSUER_LID_F));
  n.toggle = mad_get_field(p, 0, IB_NOTICE_TOGGLE_F) != 0;
  n.count = static_cast<std::uint16_t>(mad_get_field(p, 0, IB_NOTICE_COUNT_F));
  std::copy(in.begin() + kDetailsOffset, in.begin() + kDetailsOffset + kDetailsSize,
            n.details.begin());
  return n;
}

std::string Notice::describe(const Notice& n) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "Notice: generic=%d type=%u producer=%u trap=%u issuer_lid=%u\n",
                n.is_generic ? 1 : 0, n.type, n.producer_type, n.trap_number, n.issuer_lid);
  return buf;
}

}  // namespace ibsm::mad
