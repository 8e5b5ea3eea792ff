#include "sm/qos/vlarb_plan.hpp"

#include <algorithm>

#include "sm/qos/link_vls.hpp"

namespace ibsm::sm::qos {

std::vector<VlArbWant> port_vlarb_blocks(const ClassConfig& cfg, std::uint8_t vl_cap,
                                         std::uint8_t low_cap, std::uint8_t high_cap,
                                         std::uint8_t oper_vls_code) {
  std::vector<VlArbWant> out;
  const unsigned mask = vl_mask(oper_vls_code);
  constexpr unsigned kPerBlock = mad::VlArbBlock::kEntries;
  for (unsigned block = 1; block <= mad::VlArbBlock::kBlocks; ++block) {
    if (!mad::vlarb_block_exists(vl_cap, low_cap, high_cap, block)) continue;
    const VlArbList& list = block <= 2 ? cfg.vlarb_low : cfg.vlarb_high;
    const unsigned cap = block <= 2 ? low_cap : high_cap;
    const unsigned first = block % 2 == 1 ? 0 : kPerBlock;
    VlArbWant w;
    w.block = block;
    w.entries = std::min(cap - first, kPerBlock);
    for (unsigned e = 0; e < w.entries; ++e) {
      const mad::VlArbBlock::Entry& from = list[first + e];
      w.table.entries[e] = {static_cast<std::uint8_t>(from.vl & mask), from.weight};
    }
    out.push_back(w);
  }
  return out;
}

std::vector<VlArbWant> vlarb_wants(const Fabric& f, const QosConfig& qos, std::uint8_t max_op_vls) {
  std::vector<VlArbWant> out;
  const auto add = [&](NodeIndex i, PortNum port) {
    const Node& n = f.node(i);
    const mad::PortInfo& pi = n.ports[port].info;
    const std::uint8_t code = port_operational_vls(&qos, f, i, port, max_op_vls);
    for (VlArbWant w : port_vlarb_blocks(qos.of(n, i, port), pi.vl_cap, pi.vl_arbitration_low_cap,
                                         pi.vl_arbitration_high_cap, code)) {
      w.node = i;
      w.port = port;
      out.push_back(w);
    }
  };
  for (NodeIndex i = 0; i < f.size(); ++i) {
    const Node& n = f.node(i);
    if (n.is_switch()) {
      if (n.ports.empty() || !n.ports[0].present) continue;
      if (n.switch_info && n.switch_info->enhanced_port0) add(i, 0);
    }
    for (const Port& p : n.ports) {
      if (p.num == 0 || !p.link_up() || p.peer == kNoNode) continue;
      add(i, p.num);
    }
  }
  return out;
}

}  // namespace ibsm::sm::qos
