#include "sm/tables/sl2vl_plan.hpp"

#include <algorithm>
#include <array>

#include "sm/links/link_rules.hpp"
#include "sm/qos/link_vls.hpp"

namespace ibsm::sm {

unsigned decode_operational_vls(std::uint8_t code) {
  switch (code) {
    case 2:
      return 2;
    case 3:
      return 4;
    case 4:
      return 8;
    case 5:
      return 15;
    default:
      return 1;
  }
}

std::uint8_t negotiated_operational_vls(const Port& port, const Port& peer,
                                        std::uint8_t max_op_vls) {
  return operational_vls(port.info.vl_cap, peer.present ? peer.info.vl_cap : port.info.vl_cap,
                         max_op_vls);
}

unsigned usable_vls(const Fabric& f, std::uint8_t max_op_vls) {
  unsigned vls = 15;
  for (const Node& n : f.nodes()) {
    if (!n.is_switch()) continue;
    for (const Port& p : n.ports) {
      if (!p.link_up() || p.peer == kNoNode) continue;
      const Port& peer = f.node(p.peer).ports[p.peer_port];
      vls = std::min(vls, decode_operational_vls(negotiated_operational_vls(p, peer, max_op_vls)));
    }
  }
  return std::clamp(vls, 1u, 15u);
}

mad::SlToVlTable identity_sl2vl(std::uint8_t oper_vls_code) {
  // OSM_DEFAULT_QOS_SL2VL, masked as every QoS table is (qos::masked_class_sl2vl).
  static constexpr std::array<std::uint8_t, 16> kDefault = {0, 1, 2,  3,  4,  5,  6,  7,
                                                            8, 9, 10, 11, 12, 13, 14, 7};
  return qos::masked_class_sl2vl(kDefault, oper_vls_code);
}

std::vector<Sl2VlWant> sl2vl_wants(const Fabric& f, std::uint8_t max_op_vls) {
  return sl2vl_wants(f, max_op_vls, EngineSl2Vl{});
}

EngineSl2Vl engine_sl2vl(const routing::Topology& topo, const routing::Routes::Sl2Vl& tables) {
  EngineSl2Vl out;
  for (std::size_t s = 0; s < topo.switches.size() && s < tables.switches.size(); ++s)
    out.switches[topo.switches[s].guid] = {topo.switches[s].num_ports + 1u, tables.switches[s]};
  for (std::size_t e = 0; e < topo.end_ports.size() && e < tables.end_ports.size(); ++e)
    out.end_ports[topo.end_ports[e].port_guid] = tables.end_ports[e];
  return out;
}

mad::SlToVlTable masked_sl2vl(const EngineSl2Vl::Table& table, std::uint8_t oper_vls_code) {
  const unsigned mask = qos::vl_mask(oper_vls_code);
  mad::SlToVlTable t;
  for (unsigned sl = 0; sl < mad::SlToVlTable::kSls; ++sl)
    t.vl[sl] = static_cast<std::uint8_t>(table[sl] & mask);
  return t;
}

std::vector<PortNum> sl2vl_inputs(const Fabric& f, NodeIndex node, PortNum out) {
  std::vector<PortNum> ins;
  for (const Port& in : f.node(node).ports) {
    if (in.num == out && in.num != 0) continue;  // a packet never leaves where it came in
    if (in.num != 0 && (!in.link_up() || in.peer == kNoNode)) continue;
    ins.push_back(in.num);
  }
  return ins;
}

std::vector<Sl2VlWant> sl2vl_wants(const Fabric& f, std::uint8_t max_op_vls,
                                   const EngineSl2Vl& engine) {
  return sl2vl_wants(f, max_op_vls, engine, nullptr);
}

std::vector<Sl2VlWant> sl2vl_wants(const Fabric& f, std::uint8_t max_op_vls,
                                   const EngineSl2Vl& engine, const qos::QosConfig* qos) {
  if (qos != nullptr && !qos->enabled) qos = nullptr;
  std::vector<Sl2VlWant> out;
  // The table a port wants before any engine table: the policy's qos-setup table for
  // (node, in, out), else QoS's class table, else the identity.
  const qos::PortOverrides* ov = qos != nullptr ? qos->overrides.get() : nullptr;
  const auto base = [&](NodeIndex i, const Node& n, PortNum in, PortNum port, std::uint8_t code) {
    if (ov != nullptr) {
      if (const auto* t = ov->sl2vl(i, in, port)) return qos::masked_class_sl2vl(*t, code);
    }
    return qos != nullptr ? qos::masked_class_sl2vl(qos->of(qos::port_class(n, port)).sl2vl, code)
                          : identity_sl2vl(code);
  };
  for (NodeIndex i = 0; i < f.size(); ++i) {
    const Node& n = f.node(i);
    if (!n.is_switch()) {
      for (const Port& p : n.ports) {
        if (p.num == 0 || !p.link_up() || p.peer == kNoNode) continue;
        if ((p.info.capability_mask & mad::kCapIsSlMappingSupported) == 0) continue;
        const std::uint8_t code = qos::port_operational_vls(qos, f, i, p.num, max_op_vls);
        const auto it = engine.end_ports.find(p.guid);
        out.push_back(Sl2VlWant{i, p.num, 0,
                                it != engine.end_ports.end() ? masked_sl2vl(it->second, code)
                                                             : base(i, n, 0, p.num, code)});
      }
      continue;
    }
    if (n.ports.empty() || !n.ports[0].present) continue;
    const Port& p0 = n.ports[0];
    if ((p0.info.capability_mask & mad::kCapIsSlMappingSupported) == 0) continue;
    const bool enhanced = n.switch_info && n.switch_info->enhanced_port0;
    const auto mine = engine.switches.find(n.guid());
    // OpenSM's qos_extports_setup: the optimized form only where no engine has per-input
    // tables (its update_sl2vl hook).
    const bool optimized = qos != nullptr && qos->optimized_sl2vl && engine.empty() &&
                           (ov == nullptr || !ov->per_input(i)) && n.switch_info &&
                           mad::optimized_sl2vl_programming(n.switch_info->optimized_sl_to_vl);
    for (const Port& o : n.ports) {
      if (o.num == 0 && !enhanced) continue;  // a base port 0 has no table of its own (14.2.5.8)
      if (o.num != 0 && (!o.link_up() || o.peer == kNoNode)) continue;
      const std::uint8_t code = qos::port_operational_vls(qos, f, i, o.num, max_op_vls);
      if (optimized) {
        out.push_back(Sl2VlWant{i, o.num, 0, base(i, n, 0, o.num, code), true});
        continue;
      }
      for (PortNum in : sl2vl_inputs(f, i, o.num)) {
        const std::size_t at =
            std::size_t{in} * (mine != engine.switches.end() ? mine->second.ports : 0) + o.num;
        if (mine != engine.switches.end() && in < mine->second.ports &&
            o.num < mine->second.ports && at < mine->second.tables.size())
          out.push_back(Sl2VlWant{i, o.num, in, masked_sl2vl(mine->second.tables[at], code)});
        else
          out.push_back(Sl2VlWant{i, o.num, in, base(i, n, in, o.num, code)});
      }
    }
  }
  return out;
}

}  // namespace ibsm::sm
