// MLNXExtendedPortInfo (SMP attribute 0xFF90, in the vendor range of IBA 14.2.5):
// Mellanox's per-port attribute that carries the FDR10 speed, which standard
// PortInfo cannot express. The SM reads it on devices known to implement it and
// writes LinkSpeedEnabled (opensm.conf fdr10). Attribute modifier: the port number.
//
// Layout (64 bytes, big-endian, reserved bytes zero): byte 3 StateChangeEnable
// (bit 0), byte 7 LinkSpeedSupported, byte 11 LinkSpeedEnabled, byte 15
// LinkSpeedActive; each speed byte holds bit 0 = FDR10.
#pragma once

#include <cstdint>

#include "mad/attribute_codec.hpp"
#include "mad/types.hpp"

namespace ibsm::mad {

inline constexpr std::uint8_t kMlnxSpeedFdr10 = 0x01;

struct MlnxExtPortInfo {
  static constexpr AttrId kAttrId = AttrId::kMlnxExtendedPortInfo;
  static constexpr const char* kName = "MLNXExtendedPortInfo";

  std::uint8_t state_change_enable = 0;  // Set: 1 = apply the enables written
  std::uint8_t link_speed_supported = 0;
  std::uint8_t link_speed_enabled = 0;
  std::uint8_t link_speed_active = 0;

  template <class Self, class Visit>
  static void fields(Self& s, Visit&& v) {
    v(IB_MLNX_EXT_PORT_STATE_CHG_ENABLE_F, s.state_change_enable);
    v(IB_MLNX_EXT_PORT_LINK_SPEED_SUPPORTED_F, s.link_speed_supported);
    v(IB_MLNX_EXT_PORT_LINK_SPEED_ENABLED_F, s.link_speed_enabled);
    v(IB_MLNX_EXT_PORT_LINK_SPEED_ACTIVE_F, s.link_speed_active);
  }
};

// Whether a device answers MLNXExtendedPortInfo, from its NodeInfo. No capability
// bit says so; like OpenSM (is_mlnx_ext_port_info_supported) the SM goes by the
// DeviceIDs of Mellanox SwitchX, Switch-IB, Quantum, ConnectX-3 to ConnectX-6 and
// BlueField, whatever the VendorID, and by those of Bull's (VendorID 0x119F)
// Mellanox-based products.
bool has_mlnx_ext_port_info(std::uint32_t vendor_id, std::uint16_t device_id);

}  // namespace ibsm::mad
