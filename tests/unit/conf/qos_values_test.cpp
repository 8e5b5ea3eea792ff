// The text forms of the qos_*vlarb_* and qos_*sl2vl keys (conf/qos_values.hpp): what is
// accepted, and the error a malformed value gives (the key and the fault named).
#include "conf/qos_values.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "conf/errors.hpp"
#include "conf/opensm_conf_reader.hpp"

namespace ibsm::conf {
namespace {

using ::testing::HasSubstr;

TEST(QosValues, VlArbListsParseAsOpenSmWritesThem) {
  auto r = parse_vlarb_list("0:4,1:8, 2 : 0x10 ,14:255");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(*r, (std::vector<VlArbEntry>{{0, 4}, {1, 8}, {2, 16}, {14, 255}}));
  EXPECT_EQ(parse_vlarb_list("0:4,").value().size(), 1u);  // a trailing comma
  EXPECT_EQ(parse_vlarb_list(kDefaultQosVlarbHigh).value().size(), 15u);
  EXPECT_EQ(parse_vlarb_list(kDefaultQosVlarbLow).value()[1], (VlArbEntry{1, 4}));
}

TEST(QosValues, MalformedVlArbListsSayWhatIsWrong) {
  const auto why = [](std::string_view v) {
    auto r = parse_vlarb_list(v);
    EXPECT_FALSE(r.ok()) << v;
    return r.ok() ? std::string() : r.error().message;
  };
  EXPECT_THAT(why("0:4,15:1"), HasSubstr("entry 2: VL 15 is not a data VL (0-14)"));
  EXPECT_THAT(why("0:256"), HasSubstr("weight 256 is above 255"));
  EXPECT_THAT(why("0:4,,1:2"), HasSubstr("entry 2 is empty"));
  EXPECT_THAT(why("0-4"), HasSubstr("is not VL:weight"));
  EXPECT_THAT(why("a:4"), HasSubstr("not two numbers"));
  std::string many;
  for (int i = 0; i < 65; ++i)
    many += "0:1,";
  many += "0:1";
  EXPECT_THAT(why(many), HasSubstr("at most 64"));
  EXPECT_FALSE(parse_vlarb_list("").ok());
}

TEST(QosValues, Sl2VlNeedsSixteenVls) {
  auto r = parse_sl2vl_list(kDefaultQosSl2Vl);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[15], 7);
  EXPECT_EQ((*r)[14], 14);
  EXPECT_TRUE(parse_sl2vl_list("0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,15").ok());
  EXPECT_THAT(parse_sl2vl_list("0,1,2").error().message, HasSubstr("3 VLs listed"));
  EXPECT_THAT(parse_sl2vl_list("0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,16").error().message,
              HasSubstr("SL 15: VL 16 is above 15"));
  EXPECT_THAT(parse_sl2vl_list("0,1,2,3,4,5,6,7,8,9,10,11,12,13,x,7").error().message,
              HasSubstr("SL 14: 'x' is not a number"));
}

TEST(QosValues, AMalformedKeyInOpensmConfIsAnErrorNamingKeyAndFault) {
  Options o;
  auto r = apply_opensm_conf("qos TRUE\nqos_swe_vlarb_high 0:4,1:300\n", "f.conf", o, false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().id, kBadValue);
  EXPECT_THAT(r.error().message, HasSubstr("f.conf:2"));
  EXPECT_THAT(r.error().message, HasSubstr("qos_swe_vlarb_high"));
  EXPECT_THAT(r.error().message, HasSubstr("entry 2: weight 300 is above 255"));
  EXPECT_THAT(r.error().message, HasSubstr("VL:weight"));  // the syntax
  r = apply_opensm_conf("qos_ca_sl2vl 0,1\n", "f.conf", o, false);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("qos_ca_sl2vl"));
  EXPECT_THAT(r.error().message, HasSubstr("2 VLs listed"));
  r = apply_opensm_conf("qos_max_vls 16\n", "f.conf", o, false);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("0-15"));
}

TEST(QosValues, GoodKeysAndNullReachTheOptions) {
  Options o;
  auto r = apply_opensm_conf(
      "qos TRUE\nqos_vlarb_high 0:4,1:8\nqos_sl2vl 0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7\n"
      "qos_ca_vlarb_low (null)\nqos_rtr_high_limit 5\n",
      "f.conf", o, false);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(o.qos);
  EXPECT_EQ(o.qos_vlarb_high, "0:4,1:8");
  EXPECT_EQ(o.qos_ca_vlarb_low, "");
  EXPECT_EQ(o.qos_rtr_high_limit, 5);
}

}  // namespace
}  // namespace ibsm::conf
