#include "sm/qos/qos_config.hpp"

#include <algorithm>

namespace ibsm::sm::qos {

namespace {

// The keys of one class, and of the qos_ base set they fall back to.
struct ClassKeys {
  std::uint32_t max_vls;
  std::int32_t high_limit;
  const std::string* vlarb_high;
  const std::string* vlarb_low;
  const std::string* sl2vl;
};

ClassKeys keys_of(const conf::Options& o, PortClass c) {
  switch (c) {
    case PortClass::kCa:
      return {o.qos_ca_max_vls, o.qos_ca_high_limit, &o.qos_ca_vlarb_high, &o.qos_ca_vlarb_low,
              &o.qos_ca_sl2vl};
    case PortClass::kSwitchPort0:
      return {o.qos_sw0_max_vls, o.qos_sw0_high_limit, &o.qos_sw0_vlarb_high, &o.qos_sw0_vlarb_low,
              &o.qos_sw0_sl2vl};
    case PortClass::kSwitchExternal:
      return {o.qos_swe_max_vls, o.qos_swe_high_limit, &o.qos_swe_vlarb_high, &o.qos_swe_vlarb_low,
              &o.qos_swe_sl2vl};
    case PortClass::kRouter:
      return {o.qos_rtr_max_vls, o.qos_rtr_high_limit, &o.qos_rtr_vlarb_high, &o.qos_rtr_vlarb_low,
              &o.qos_rtr_sl2vl};
  }
  return {};
}

// The class's text if set, else the base key's, else OpenSM's default.
std::string_view pick(const std::string& mine, const std::string& base, std::string_view dflt) {
  if (!mine.empty()) return mine;
  if (!base.empty()) return base;
  return dflt;
}

VlArbList vlarb_list(std::string_view text, std::string_view dflt) {
  auto parsed = conf::parse_vlarb_list(text);
  if (!parsed.ok()) parsed = conf::parse_vlarb_list(dflt);
  VlArbList out{};
  for (std::size_t i = 0; i < parsed->size() && i < out.size(); ++i)
    out[i] = {(*parsed)[i].vl, (*parsed)[i].weight};
  return out;
}

std::array<std::uint8_t, 16> sl2vl_list(std::string_view text) {
  auto parsed = conf::parse_sl2vl_list(text);
  return parsed.ok() ? *parsed : *conf::parse_sl2vl_list(conf::kDefaultQosSl2Vl);
}

}  // namespace

PortClass port_class(const Node& n, PortNum port) {
  if (n.is_switch()) return port == 0 ? PortClass::kSwitchPort0 : PortClass::kSwitchExternal;
  return n.type() == mad::NodeType::kRouter ? PortClass::kRouter : PortClass::kCa;
}

std::string_view port_class_prefix(PortClass c) {
  switch (c) {
    case PortClass::kCa:
      return "qos_ca";
    case PortClass::kSwitchPort0:
      return "qos_sw0";
    case PortClass::kSwitchExternal:
      return "qos_swe";
    case PortClass::kRouter:
      return "qos_rtr";
  }
  return "qos";
}

QosConfig qos_config(const conf::Options& o) {
  QosConfig q;
  q.enabled = o.qos;
  q.optimized_sl2vl = o.use_optimized_slvl;
  const ClassKeys base{o.qos_max_vls, o.qos_high_limit, &o.qos_vlarb_high, &o.qos_vlarb_low,
                       &o.qos_sl2vl};
  for (std::size_t i = 0; i < kPortClasses; ++i) {
    const ClassKeys k = keys_of(o, static_cast<PortClass>(i));
    ClassConfig& c = q.classes[i];
    // max_vls 0 and high_limit -1 mean "unset" (osm_subnet.c subn_init_qos_options).
    c.max_vls = k.max_vls > 0      ? k.max_vls
                : base.max_vls > 0 ? base.max_vls
                                   : conf::kDefaultQosMaxVls;
    c.high_limit = static_cast<std::uint8_t>(k.high_limit >= 0      ? k.high_limit
                                             : base.high_limit >= 0 ? base.high_limit
                                                                    : conf::kDefaultQosHighLimit);
    c.vlarb_high = vlarb_list(pick(*k.vlarb_high, *base.vlarb_high, conf::kDefaultQosVlarbHigh),
                              conf::kDefaultQosVlarbHigh);
    c.vlarb_low = vlarb_list(pick(*k.vlarb_low, *base.vlarb_low, conf::kDefaultQosVlarbLow),
                             conf::kDefaultQosVlarbLow);
    c.sl2vl = sl2vl_list(pick(*k.sl2vl, *base.sl2vl, conf::kDefaultQosSl2Vl));
  }
  return q;
}

std::uint8_t max_vls_code(unsigned max_vls) {
  if (max_vls >= 15) return 5;
  if (max_vls >= 8) return 4;
  if (max_vls >= 4) return 3;
  if (max_vls >= 2) return 2;
  return 1;
}

unsigned vl_mask(std::uint8_t code) {
  const unsigned c = std::clamp<unsigned>(code, 1, 5);
  return (1u << (c - 1)) - 1;
}

// VL 15 (drop) stays; data VLs are cut to the port's, as osm_qos.c sl2vl_update_table does.
mad::SlToVlTable masked_class_sl2vl(const std::array<std::uint8_t, 16>& sl2vl, std::uint8_t code) {
  const unsigned mask = vl_mask(code);
  mad::SlToVlTable t;
  for (std::size_t sl = 0; sl < t.vl.size(); ++sl)
    t.vl[sl] = static_cast<std::uint8_t>(sl2vl[sl] == 15 ? 15 : sl2vl[sl] & mask);
  return t;
}

const ClassConfig& QosConfig::of(const Node& n, NodeIndex i, PortNum port) const {
  if (overrides) {
    if (const ClassConfig* c = overrides->vlarb(i, port)) return *c;
  }
  return of(port_class(n, port));
}

}  // namespace ibsm::sm::qos
