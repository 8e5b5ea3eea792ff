// MLNXExtendedPortInfo (mad/attr/mlnx_ext_port_info.hpp): the wire layout OpenSM and
// the devices use (bytes 3, 7, 11, 15 of the SMP data), and which devices the SM
// asks for it.
#include <gtest/gtest.h>

#include <array>

#include "mad/attr/mlnx_ext_port_info.hpp"

namespace ibsm::mad {
namespace {

TEST(MlnxExtPortInfo, EncodesAtTheVendorOffsets) {
  MlnxExtPortInfo e;
  e.state_change_enable = 1;
  e.link_speed_supported = 0x01;
  e.link_speed_enabled = 0x01;
  e.link_speed_active = 0x01;
  std::array<std::uint8_t, kSmpDataSize> b{};
  b.fill(0xee);
  encode(e, Payload(b));
  for (std::size_t i = 0; i < b.size(); ++i) {
    const bool field = i == 3 || i == 7 || i == 11 || i == 15;
    EXPECT_EQ(b[i], field ? 0x01 : 0x00) << "byte " << i;
  }
}

TEST(MlnxExtPortInfo, DecodesWhatADeviceAnswers) {
  std::array<std::uint8_t, kSmpDataSize> b{};
  b[3] = 0x00;   // StateChangeEnable
  b[7] = 0x01;   // LinkSpeedSupported: FDR10
  b[11] = 0x00;  // LinkSpeedEnabled: none
  b[15] = 0x00;  // LinkSpeedActive
  b[20] = 0xff;  // reserved bytes are not read
  auto e = decode<MlnxExtPortInfo>(b);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->state_change_enable, 0);
  EXPECT_EQ(e->link_speed_supported, kMlnxSpeedFdr10);
  EXPECT_EQ(e->link_speed_enabled, 0);
  EXPECT_EQ(e->link_speed_active, 0);
  std::array<std::uint8_t, kSmpDataSize> again{};
  encode(*e, Payload(again));
  EXPECT_EQ(again[7], 0x01);
  EXPECT_EQ(again[20], 0x00);
  EXPECT_FALSE(decode<MlnxExtPortInfo>(std::span<const std::uint8_t>(b.data(), 16)).ok());
}

TEST(MlnxExtPortInfo, AttributeIdAndName) {
  EXPECT_EQ(static_cast<std::uint16_t>(MlnxExtPortInfo::kAttrId), 0xFF90);
  EXPECT_EQ(attr_name(AttrId::kMlnxExtendedPortInfo), "MLNXExtendedPortInfo");
}

TEST(MlnxExtPortInfo, DevicesAskedForItAsInOpensm) {
  EXPECT_TRUE(has_mlnx_ext_port_info(0x02c9, 0x1003));   // ConnectX-3
  EXPECT_TRUE(has_mlnx_ext_port_info(0x02c9, 0x101b));   // ConnectX-6
  EXPECT_TRUE(has_mlnx_ext_port_info(0x02c9, 0xc738));   // SwitchX
  EXPECT_TRUE(has_mlnx_ext_port_info(0x02c9, 0xcb20));   // Switch-IB
  EXPECT_TRUE(has_mlnx_ext_port_info(0x02c9, 0xd2f0));   // Quantum
  EXPECT_TRUE(has_mlnx_ext_port_info(0x0000, 0x1017));   // by DeviceID alone, as OpenSM
  EXPECT_TRUE(has_mlnx_ext_port_info(0x119f, 0x1bd3));   // Bull
  EXPECT_FALSE(has_mlnx_ext_port_info(0x02c9, 0x1bd3));  // that ID only as Bull's
  EXPECT_FALSE(has_mlnx_ext_port_info(0x02c9, 0x1021));  // ConnectX-7: not in the list
  EXPECT_FALSE(has_mlnx_ext_port_info(0x02c9, 0x6282));  // InfiniHost III
  EXPECT_FALSE(has_mlnx_ext_port_info(0x02c9, 0xb924));  // InfiniScale IV
}

}  // namespace
}  // namespace ibsm::mad
