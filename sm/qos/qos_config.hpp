// OpenSM's QoS settings (opensm.conf qos and the qos_* keys) resolved per port class:
// each parameter from the class's key (qos_ca_, qos_sw0_, qos_swe_, qos_rtr_) when set,
// else from the qos_ base key, else OpenSM's built-in default (osm_qos.c
// qos_build_config, OSM_DEFAULT_QOS_* in osm_base.h). Pure: options in, tables out.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string_view>

#include "conf/options.hpp"
#include "mad/attr/vl_tables.hpp"
#include "sm/fabric/fabric.hpp"

namespace ibsm::sm::qos {

// The four classes OpenSM configures separately (doc/QoS_management_in_OpenSM.txt).
enum class PortClass : std::uint8_t { kCa, kSwitchPort0, kSwitchExternal, kRouter };
inline constexpr std::size_t kPortClasses = 4;

PortClass port_class(const Node& n, PortNum port);
// "qos_ca", "qos_sw0", "qos_swe", "qos_rtr": the key prefix, for log lines.
std::string_view port_class_prefix(PortClass c);

// VLArbitrationTable entries of one priority as configured: 64 (two blocks of 32, IBA
// 14.2.5.9), zero beyond the listed ones.
using VlArbList = std::array<mad::VlArbBlock::Entry, 2 * mad::VlArbBlock::kEntries>;

struct ClassConfig {
  unsigned max_vls = conf::kDefaultQosMaxVls;  // data VLs, 1-15
  std::uint8_t high_limit = conf::kDefaultQosHighLimit;
  VlArbList vlarb_high{};
  VlArbList vlarb_low{};
  std::array<std::uint8_t, 16> sl2vl{};  // VL by SL, before masking to a port's VLs
  bool operator==(const ClassConfig&) const = default;
};

// Per-port tables that replace the class ones: the QoS policy file's qos-setup
// (sm/qos/policy_setup.hpp). Null where a port keeps its class's.
class PortOverrides {
 public:
  virtual ~PortOverrides() = default;
  // VLArbitration lists and VLHighLimit of (node, port).
  virtual const ClassConfig* vlarb(NodeIndex node, PortNum port) const = 0;
  // SL2VL table (unmasked) of (node, in, out); an end port's own table is (node, 0, port).
  virtual const std::array<std::uint8_t, 16>* sl2vl(NodeIndex node, PortNum in,
                                                    PortNum out) const = 0;
  // Whether a switch's tables may differ by input port (no optimized one-per-output Set).
  virtual bool per_input(NodeIndex node) const = 0;
};

struct QosConfig {
  bool enabled = false;          // qos / -Q
  bool optimized_sl2vl = false;  // use_optimized_slvl
  std::array<ClassConfig, kPortClasses> classes{};
  std::shared_ptr<const PortOverrides> overrides;  // qos-setup of the policy file, or null
  const ClassConfig& of(PortClass c) const { return classes[static_cast<std::size_t>(c)]; }
  // The configuration of one port: its qos-setup scope's, else its class's.
  const ClassConfig& of(const Node& n, NodeIndex i, PortNum port) const;
};

// The options' QoS settings. The text keys were checked when the configuration was read
// (conf/qos_values.hpp); a value that still does not parse counts as unset.
QosConfig qos_config(const conf::Options& o);

// The largest OperationalVLs code (IBA 14.2.5.6: 1 = VL0, 2 = VL0-1, 3 = VL0-3,
// 4 = VL0-7, 5 = VL0-14) whose data VLs fit in `max_vls`.
std::uint8_t max_vls_code(unsigned max_vls);

// The VL mask of a port running OperationalVLs `code`, as osm_qos.c applies it to the
// tables it sends: (1 << (code - 1)) - 1.
unsigned vl_mask(std::uint8_t code);

// The SL2VL table of a class for a port running OperationalVLs `code`: each VL masked,
// except VL 15 (drop), which stays (osm_qos.c sl2vl_update_table).
mad::SlToVlTable masked_class_sl2vl(const std::array<std::uint8_t, 16>& sl2vl, std::uint8_t code);

}  // namespace ibsm::sm::qos
