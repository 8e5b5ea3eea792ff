#include <gtest/gtest.h>

#include "agent/ipoib_rules.hpp"

namespace ibsm::agent {
namespace {

TEST(IpoibRules, PKeysAreNormalisedToFullMembership) {
  EXPECT_EQ(normalize_pkey(0x0002), 0x8002);
  EXPECT_EQ(normalize_pkey(0x8002), 0x8002);
  EXPECT_EQ(child_name("ib0", 0x000a), "ib0.800a");
}

TEST(IpoibRules, ReservedPKeysAreInvalid) {
  EXPECT_FALSE(is_valid_pkey(0x0000));
  EXPECT_FALSE(is_valid_pkey(0x8000));
  EXPECT_TRUE(is_valid_pkey(0x0001));
  EXPECT_TRUE(is_valid_pkey(0xffff));
}

TEST(IpoibRules, MtuLimitsFollowModeAndBroadcastGroup) {
  EXPECT_EQ(max_mtu(false, 2048), 2044);
  EXPECT_EQ(max_mtu(false, 4096), 4092);
  EXPECT_EQ(max_mtu(true, 2048), 65520);
}

TEST(IpoibRules, HardwareAddressCarriesCmFlagAndGuid) {
  std::string cm = "80:00:00:48:fe:80:00:00:00:00:00:00:00:02:c9:03:00:00:12:34";
  std::string enhanced = "00:00:10:87:fe:80:00:00:00:00:00:00:0c:42:a1:03:00:00:56:78";
  EXPECT_TRUE(hw_address_supports_connected(cm));
  EXPECT_FALSE(hw_address_supports_connected(enhanced));
  EXPECT_EQ(hw_address_guid(cm), 0x0002c90300001234u);
  EXPECT_EQ(hw_address_guid("52:54:00:00:00:01"), 0u);
}

}  // namespace
}  // namespace ibsm::agent
