// Congestion control (sm/cc/): the MADs the SM builds for a fabric, decoded with
// libibmad's IB_CC_* field tables (a decoder written by others, not ours), equal the
// configured values; the configuration's bad values are refused with file:line; and
// on a FakeFabric the SM programs every switch and CA port after SUBNET UP, sends
// nothing a port already holds, and logs once and skips a port that refuses, answers
// garbage or stays silent, without touching the sweep.
#include <gtest/gtest.h>
#include <infiniband/mad.h>

#include <atomic>
#include <memory>
#include <sstream>

#include "conf/opensm_conf_reader.hpp"
#include "conf/opensm_conf_writer.hpp"
#include "sm/cc/cc_layouts.hpp"
#include "sm/cc/cc_settings.hpp"
#include "sm/cc/switch_port_setting.hpp"
#include "sm/subnet_manager.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/log_capture.hpp"
#include "tests/support/temp_dir.hpp"

namespace ibsm::sm {
namespace {

using Mad = std::array<std::uint8_t, 256>;

// libibmad reads through non-const pointers.
std::uint32_t field(const Mad& m, std::size_t base, MAD_FIELDS f) {
  return mad_get_field(const_cast<std::uint8_t*>(m.data()), static_cast<int>(base), f);
}
std::uint64_t field64(const Mad& m, MAD_FIELDS f) {
  return mad_get_field64(const_cast<std::uint8_t*>(m.data()), 0, f);
}
std::array<std::uint8_t, 32> mask(const Mad& m, MAD_FIELDS f) {
  std::array<std::uint8_t, 32> out{};
  mad_get_array(const_cast<std::uint8_t*>(m.data()), IB_CC_DATA_OFFS, f, out.data());
  return out;
}

// A configuration with every field non-zero and distinct.
conf::Options cc_options() {
  conf::Options o;
  auto r = conf::apply_opensm_conf(
      "congestion_control TRUE\n"
      "cc_key 0x0123456789abcdef\n"
      "cc_sw_cong_setting_control_map 0x1f\n"
      "cc_sw_cong_setting_victim_mask "
      "0x8000000000000000000000000000000000000000000000000000000000000006\n"
      "cc_sw_cong_setting_credit_mask 0x0f0\n"
      "cc_sw_cong_setting_threshold 0x0d\n"
      "cc_sw_cong_setting_packet_size 200\n"
      "cc_sw_cong_setting_credit_starvation_threshold 0x0b\n"
      "cc_sw_cong_setting_credit_starvation_return_delay 2:1234\n"
      "cc_sw_cong_setting_marking_rate 4321\n"
      "cc_ca_cong_setting_port_control 0x0001\n"
      "cc_ca_cong_setting_control_map 0x8003\n"
      "cc_ca_cong_setting_ccti_timer 0 1000\n"
      "cc_ca_cong_setting_ccti_timer 15 65535\n"
      "cc_ca_cong_setting_ccti_increase 1 7\n"
      "cc_ca_cong_setting_trigger_threshold 1 9\n"
      "cc_ca_cong_setting_ccti_min 15 250\n",
      "opensm.conf", o, false);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  // 70 entries: two CongestionControlTable blocks, CCTI_Limit 69.
  std::string cct;
  for (unsigned i = 0; i < 70; ++i)
    cct += (i ? "," : "") + std::to_string(i % 4) + ":" + std::to_string(i * 100);
  o.cc_cct = cct;
  return o;
}

Mad mad_of(cc::CcAttr attr, std::uint32_t mod, const cc::CcData& data, std::uint64_t key = 0) {
  return cc::build_cc_set({attr, mod, key, 0x1234, data});
}

TEST(CcLayouts, SwitchCongestionSettingDecodedByLibibmad) {
  auto s = cc::cc_settings(cc_options());
  ASSERT_TRUE(s.ok());
  const Mad m = mad_of(cc::CcAttr::kSwitchCongestionSetting, 0, cc::encode(s->sw), s->cc_key);
  EXPECT_EQ(field(m, 0, IB_MAD_MGMTCLASS_F), 0x21u);
  EXPECT_EQ(field(m, 0, IB_MAD_CLASSVER_F), 2u);
  EXPECT_EQ(field(m, 0, IB_MAD_METHOD_F), 2u);
  EXPECT_EQ(field(m, 0, IB_MAD_ATTRID_F), 0x14u);
  EXPECT_EQ(field64(m, IB_CC_CCKEY_F), 0x0123456789abcdefULL);
  const std::size_t d = IB_CC_DATA_OFFS;
  EXPECT_EQ(field(m, d, IB_CC_SWITCH_CONGESTION_SETTING_CONTROL_MAP_F), 0x1fu);
  std::array<std::uint8_t, 32> victim{};
  victim[0] = 0x80;
  victim[31] = 0x06;
  EXPECT_EQ(mask(m, IB_CC_SWITCH_CONGESTION_SETTING_VICTIM_MASK_F), victim);
  std::array<std::uint8_t, 32> credit{};
  credit[30] = 0x00;
  credit[31] = 0xf0;
  EXPECT_EQ(mask(m, IB_CC_SWITCH_CONGESTION_SETTING_CREDIT_MASK_F), credit);
  EXPECT_EQ(field(m, d, IB_CC_SWITCH_CONGESTION_SETTING_THRESHOLD_F), 0xdu);
  EXPECT_EQ(field(m, d, IB_CC_SWITCH_CONGESTION_SETTING_PACKET_SIZE_F), 200u);
  EXPECT_EQ(field(m, d, IB_CC_SWITCH_CONGESTION_SETTING_CS_THRESHOLD_F), 0xbu);
  EXPECT_EQ(field(m, d, IB_CC_SWITCH_CONGESTION_SETTING_CS_RETURN_DELAY_F), (2u << 14) | 1234u);
  EXPECT_EQ(field(m, d, IB_CC_SWITCH_CONGESTION_SETTING_MARKING_RATE_F), 4321u);
  // Our own decoder reads back what it wrote.
  cc::CcData data{};
  std::copy(m.begin() + 64, m.end(), data.begin());
  EXPECT_EQ(cc::decode_switch_setting(data), s->sw);
}

TEST(CcLayouts, CaCongestionSettingDecodedByLibibmad) {
  auto s = cc::cc_settings(cc_options());
  ASSERT_TRUE(s.ok());
  const Mad m = mad_of(cc::CcAttr::kCaCongestionSetting, 0, cc::encode(s->ca));
  const std::size_t d = IB_CC_DATA_OFFS;
  EXPECT_EQ(field(m, 0, IB_MAD_ATTRID_F), 0x16u);
  EXPECT_EQ(field(m, d, IB_CC_CA_CONGESTION_SETTING_PORT_CONTROL_F), 1u);
  EXPECT_EQ(field(m, d, IB_CC_CA_CONGESTION_SETTING_CONTROL_MAP_F), 0x8003u);
  struct Want {
    unsigned timer, increase, trigger, min;
  };
  std::array<Want, 16> want{};
  want[0] = {1000, 0, 0, 0};
  want[1] = {0, 7, 9, 0};
  want[15] = {65535, 0, 0, 250};
  for (std::size_t sl = 0; sl < 16; ++sl) {
    const std::size_t e = d + 4 + 8 * sl;
    EXPECT_EQ(field(m, e, IB_CC_CA_CONGESTION_ENTRY_CCTI_TIMER_F), want[sl].timer) << sl;
    EXPECT_EQ(field(m, e, IB_CC_CA_CONGESTION_ENTRY_CCTI_INCREASE_F), want[sl].increase) << sl;
    EXPECT_EQ(field(m, e, IB_CC_CA_CONGESTION_ENTRY_TRIGGER_THRESHOLD_F), want[sl].trigger) << sl;
    EXPECT_EQ(field(m, e, IB_CC_CA_CONGESTION_ENTRY_CCTI_MIN_F), want[sl].min) << sl;
  }
}

TEST(CcLayouts, CongestionControlTableBlocksDecodedByLibibmad) {
  auto s = cc::cc_settings(cc_options());
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->cct.size(), 2u);
  for (std::uint32_t b = 0; b < 2; ++b) {
    const Mad m = mad_of(cc::CcAttr::kCongestionControlTable, b, cc::encode(s->cct[b]));
    EXPECT_EQ(field(m, 0, IB_MAD_ATTRMOD_F), b);
    EXPECT_EQ(field(m, IB_CC_DATA_OFFS, IB_CC_CONGESTION_CONTROL_TABLE_CCTI_LIMIT_F), 69u);
    for (unsigned j = 0; j < 64; ++j) {
      const unsigned k = b * 64 + j;
      // libibmad addresses fields within big-endian 32-bit words, so its base offset
      // must be word-aligned: its entry fields (bits 0-15) read the first entry of a
      // word; the second (bits 16-31) is read with another 16-bit field at bit 16.
      const std::size_t word = IB_CC_DATA_OFFS + 4 + 4 * (j / 2);
      unsigned shift = 0, mult = 0;
      if (j % 2 == 0) {
        shift = field(m, word, IB_CC_CONGESTION_CONTROL_TABLE_ENTRY_CCT_SHIFT_F);
        // libibmad's multiplier field is 16 bits wide and overlaps the shift: mask it.
        mult = field(m, word, IB_CC_CONGESTION_CONTROL_TABLE_ENTRY_CCT_MULTIPLIER_F) & 0x3fffu;
      } else {
        const unsigned v = field(m, word, IB_CC_CA_CONGESTION_SETTING_CONTROL_MAP_F);  // bits 16-31
        shift = v >> 14;
        mult = v & 0x3fffu;
      }
      EXPECT_EQ(shift, k < 70 ? k % 4 : 0u) << k;
      EXPECT_EQ(mult, k < 70 ? k * 100 : 0u) << k;
    }
  }
}

TEST(CcLayouts, SwitchPortCongestionSettingDecodedByLibibmad) {
  cc::SwitchPortCongestionBlock b;
  b[0] = {true, false, 0xa, 64, 1000};
  b[17] = {true, true, 0x3, 2, (1u << 14) | 77u};
  b[31] = {false, true, 0xf, 255, 0xffff};
  const Mad m = mad_of(cc::CcAttr::kSwitchPortCongestionSetting, 1, cc::encode(b));
  EXPECT_EQ(field(m, 0, IB_MAD_ATTRID_F), 0x15u);
  for (std::size_t e = 0; e < b.size(); ++e) {
    const std::size_t at = IB_CC_DATA_OFFS + 4 * e;
    EXPECT_EQ(field(m, at, IB_CC_SWITCH_PORT_CONGESTION_SETTING_ELEMENT_VALID_F), b[e].valid) << e;
    EXPECT_EQ(field(m, at, IB_CC_SWITCH_PORT_CONGESTION_SETTING_ELEMENT_CONTROL_TYPE_F),
              b[e].credit_starvation)
        << e;
    EXPECT_EQ(field(m, at, IB_CC_SWITCH_PORT_CONGESTION_SETTING_ELEMENT_THRESHOLD_F),
              b[e].threshold)
        << e;
    EXPECT_EQ(field(m, at, IB_CC_SWITCH_PORT_CONGESTION_SETTING_ELEMENT_PACKET_SIZE_F),
              b[e].packet_size)
        << e;
    EXPECT_EQ(field(m, at, IB_CC_SWITCH_PORT_CONGESTION_SETTING_ELEMENT_CONG_PARM_MARKING_RATE_F),
              b[e].cong_parm)
        << e;
  }
  cc::CcData data{};
  std::copy(m.begin() + 64, m.end(), data.begin());
  EXPECT_EQ(cc::decode_switch_port_block(data), b);
}

TEST(CcLayouts, NoTableIsOneBlockWithLimitZero) {
  conf::Options o;
  auto s = cc::cc_settings(o);
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->cct.size(), 1u);
  EXPECT_EQ(s->cct[0], cc::CctBlock{});
}

TEST(CcLayouts, AnswersOfTheWrongLayoutAreErrors) {
  Mad m = mad_of(cc::CcAttr::kCaCongestionSetting, 0, {});
  m[3] = 0x81;
  EXPECT_TRUE(cc::parse_cc_answer(m).ok());
  EXPECT_FALSE(cc::parse_cc_answer(std::span(m).first(40)).ok());
  Mad other = m;
  other[2] = 1;
  EXPECT_FALSE(cc::parse_cc_answer(other).ok());
  other = m;
  other[3] = 0x02;
  EXPECT_FALSE(cc::parse_cc_answer(other).ok());
}

// ---- configuration ----

std::string conf_error(const std::string& text) {
  conf::Options o;
  auto r = conf::apply_opensm_conf(text, "opensm.conf", o, false);
  return r.ok() ? std::string("accepted") : format_error_id(r.error().id) + " " + r.error().message;
}

TEST(CcConfig, BadValuesNameFileLineAndFault) {
  EXPECT_NE(conf_error("\ncc_cct 1:2,4:1\n").find("opensm.conf:2: "), std::string::npos);
  EXPECT_NE(conf_error("cc_cct 1:2,4:1\n").find("entry 2: shift 4 is not 0-3"), std::string::npos);
  EXPECT_NE(conf_error("cc_cct 1:16384\n").find("above 16383"), std::string::npos);
  std::string long_cct = "cc_cct 0:0";
  for (int i = 0; i < 128; ++i)
    long_cct += ",0:1";
  EXPECT_NE(conf_error(long_cct).find("129 entries, at most 128"), std::string::npos);
  EXPECT_NE(conf_error("cc_sw_cong_setting_victim_mask 0x12g4\n").find("'g'"), std::string::npos);
  EXPECT_NE(conf_error("cc_sw_cong_setting_credit_starvation_return_delay 5\n").find("no ':'"),
            std::string::npos);
  EXPECT_NE(conf_error("cc_ca_cong_setting_ccti_timer 16 5\n").find("SL 16 is not 0-15"),
            std::string::npos);
  EXPECT_NE(conf_error("cc_ca_cong_setting_ccti_min 3 256\n").find("above 255"), std::string::npos);
  EXPECT_NE(conf_error("cc_ca_cong_setting_ccti_increase 3\n").find("an SL and a value"),
            std::string::npos);
  EXPECT_NE(conf_error("cc_sw_cong_setting_threshold 0x10\n").find("IBSM-50"), std::string::npos);
}

TEST(CcConfig, PerSlLinesAddUpAndRoundTrip) {
  conf::Options o = cc_options();
  EXPECT_EQ(o.cc_ca_cong_setting_ccti_timer, "0 1000,15 65535");
  EXPECT_EQ(o.cc_ca_cong_setting_trigger_threshold, "1 9");
  EXPECT_EQ(o.cc_ca_cong_setting_ccti_increase, "1 7");
  const std::string written = conf::write_opensm_conf(o);
  EXPECT_NE(written.find("cc_ca_cong_setting_ccti_timer 0 1000\ncc_ca_cong_setting_ccti_timer 15 "
                         "65535\n"),
            std::string::npos);
  conf::Options back;
  ASSERT_TRUE(conf::apply_opensm_conf(written, "written", back, false).ok());
  back.given = o.given;
  EXPECT_EQ(back, o);
  // A later line of the same SL wins; a zero drops the SL.
  conf::Options z;
  ASSERT_TRUE(conf::apply_opensm_conf("cc_ca_cong_setting_ccti_min 2 5\n"
                                      "cc_ca_cong_setting_ccti_min 2 0\n",
                                      "f", z, false)
                  .ok());
  EXPECT_EQ(z.cc_ca_cong_setting_ccti_min, "0 0");
}

// ---- the SM on a FakeFabric ----

// Two switches, three hosts; the SM runs on h1.
testsupport::Fabric cc_fabric() {
  testsupport::Fabric d;
  d.nodes.push_back({testsupport::NodeType::kSwitch, "s1", "s1", 4});
  d.nodes.push_back({testsupport::NodeType::kSwitch, "s2", "s2", 4});
  d.nodes.push_back({testsupport::NodeType::kCa, "h1", "h1", 1});
  d.nodes.push_back({testsupport::NodeType::kCa, "h2", "h2", 1});
  d.nodes.push_back({testsupport::NodeType::kCa, "h3", "h3", 1});
  d.cables = {{{0, 1}, {2, 1}}, {{0, 2}, {3, 1}}, {{0, 3}, {1, 3}}, {{1, 1}, {4, 1}}};
  testsupport::assign_ibsim_guids(d);
  return d;
}

struct Rig {
  explicit Rig(conf::Options o = cc_options()) : options(std::move(o)) {
    fabric = std::make_unique<fake::FakeFabric>(cc_fabric(), clock);
    for (const char* sw : {"s1", "s2"})
      node(sw).cc[0].cc_key = options.cc_key;
    for (const char* ca : {"h1", "h2", "h3"})
      node(ca).cc[1].cc_key = options.cc_key;
    options.cache_dir = dir.path() + "/cache";
    options.sweep_interval = 0;
    sm = std::make_unique<SubnetManager>(*fabric, clock, logger, options);
  }
  fake::FakeNode& node(const std::string& id) { return fabric->node(fabric->index(id)); }
  // The first sweep, then loop turns until the CC round is done.
  SweepResult bring_up() {
    SweepResult r = sm->sweep(flags.stop);
    settle();
    return r;
  }
  void settle() {
    for (int i = 0; i < 200; ++i)
      sm->step(flags);
  }
  FakeClock clock;
  testsupport::TempDir dir;
  std::ostringstream log_text;
  Logger logger = testsupport::capture_log(log_text, "cc");
  std::unique_ptr<fake::FakeFabric> fabric;
  conf::Options options;
  ControlFlags flags;
  std::unique_ptr<SubnetManager> sm;
};

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

TEST(CcProgramming, EverySwitchAndCaPortHoldsTheConfiguredValues) {
  Rig rig;
  EXPECT_TRUE(rig.bring_up().subnet_up);
  EXPECT_TRUE(rig.fabric->cc_registered());
  auto s = cc::cc_settings(rig.options);
  ASSERT_TRUE(s.ok());
  for (const char* sw : {"s1", "s2"}) {
    const fake::FakeCc& cc = rig.node(sw).cc.at(0);
    ASSERT_EQ(cc.received.size(), 1u) << sw;
    const Mad& m = cc.received[0];
    EXPECT_EQ(field(m, 0, IB_MAD_ATTRID_F), 0x14u);
    EXPECT_EQ(field64(m, IB_CC_CCKEY_F), rig.options.cc_key);
    EXPECT_EQ(field(m, IB_CC_DATA_OFFS, IB_CC_SWITCH_CONGESTION_SETTING_MARKING_RATE_F), 4321u);
    EXPECT_EQ(field(m, IB_CC_DATA_OFFS, IB_CC_SWITCH_CONGESTION_SETTING_CS_RETURN_DELAY_F),
              (2u << 14) | 1234u);
  }
  for (const char* ca : {"h1", "h2", "h3"}) {
    const fake::FakeCc& cc = rig.node(ca).cc.at(1);
    ASSERT_EQ(cc.received.size(), 3u) << ca;  // CACongestionSetting, CCT blocks 0 and 1
    ASSERT_EQ(cc.held.size(), 3u) << ca;
    const Mad& m = cc.received[0];
    EXPECT_EQ(field(m, 0, IB_MAD_ATTRID_F), 0x16u);
    EXPECT_EQ(field(m, IB_CC_DATA_OFFS, IB_CC_CA_CONGESTION_SETTING_CONTROL_MAP_F), 0x8003u);
    EXPECT_EQ(field(m, IB_CC_DATA_OFFS + 4 + 8 * 15, IB_CC_CA_CONGESTION_ENTRY_CCTI_MIN_F), 250u);
    EXPECT_EQ(field(cc.received[2], 0, IB_MAD_ATTRMOD_F), 1u);
    EXPECT_EQ(field(cc.received[2], IB_CC_DATA_OFFS, IB_CC_CONGESTION_CONTROL_TABLE_CCTI_LIMIT_F),
              69u);
  }
  EXPECT_EQ(rig.sm->congestion_control().counters().answered, 2u + 3u * 3u);
  EXPECT_NE(rig.log_text.str().find("congestion control: round done"), std::string::npos);

  // Another heavy sweep: every port holds its values, nothing is sent again.
  const auto before = rig.fabric->cc_requests();
  rig.sm->request_heavy_sweep(HeavyReason::kForced);
  EXPECT_TRUE(rig.sm->sweep(rig.flags.stop).subnet_up);
  rig.settle();
  EXPECT_EQ(rig.fabric->cc_requests(), before);
}

TEST(CcProgramming, OffSendsNothingAndRegistersNoAgent) {
  conf::Options o;
  Rig rig(o);
  EXPECT_TRUE(rig.bring_up().subnet_up);
  EXPECT_FALSE(rig.fabric->cc_registered());
  EXPECT_EQ(rig.fabric->cc_requests(), 0u);
}

TEST(CcProgramming, WindowHoldsAtMostCcMaxOutstandingMads) {
  conf::Options o = cc_options();
  o.cc_max_outstanding_mads = 2;
  Rig rig(o);
  for (const char* ca : {"h1", "h2", "h3"})
    rig.node(ca).faults.latency = std::chrono::milliseconds(5);
  EXPECT_TRUE(rig.sm->sweep(rig.flags.stop).subnet_up);
  const auto before = rig.fabric->cc_requests();
  // The first turn that sends puts the window's worth on the wire; answers are read
  // by the next turn's poll, so none has come back yet.
  for (int i = 0; i < 10 && rig.fabric->cc_requests() == before; ++i)
    rig.sm->step(rig.flags);
  EXPECT_EQ(rig.fabric->cc_requests() - before, 2u);
  rig.settle();
  EXPECT_EQ(rig.sm->congestion_control().counters().answered, 11u);
}

TEST(CcProgramming, PortsWithoutAgentRefusingOrSilentAreLoggedOnceAndSkipped) {
  Rig rig;
  rig.node("h2").cc.clear();                             // no CC agent: status 0x000C
  rig.node("s2").cc.at(0).short_answer = true;           // malformed answers
  rig.node("h3").cc.at(1).cc_key = 0x1;                  // drops our key: silent
  rig.node("h1").cc.at(1).status = std::uint16_t{0x1c};  // invalid value
  EXPECT_TRUE(rig.bring_up().subnet_up);
  const std::string log = rig.log_text.str();
  EXPECT_EQ(count(log, "IBSM-2601"), 2u) << log;  // h1, h2
  EXPECT_EQ(count(log, "IBSM-2603"), 1u) << log;  // s2
  EXPECT_EQ(count(log, "IBSM-2602"), 1u) << log;  // h3
  EXPECT_NE(log.find("method/attribute not supported"), std::string::npos);
  const auto& c = rig.sm->congestion_control().counters();
  EXPECT_EQ(c.refused, 2u);
  EXPECT_EQ(c.bad, 1u);
  EXPECT_EQ(c.silent, 1u);
  EXPECT_EQ(c.answered, 1u);  // s1 only
  // h3 got its three Sets (they go out together) and their retries, nothing after.
  EXPECT_EQ(rig.node("h3").cc.at(1).received.size(), 3u * (1u + rig.options.transaction_retries));

  // The next sweeps skip them: no new Sets, no new lines.
  const auto before = rig.fabric->cc_requests();
  rig.sm->request_heavy_sweep(HeavyReason::kForced);
  EXPECT_TRUE(rig.sm->sweep(rig.flags.stop).subnet_up);
  rig.settle();
  EXPECT_EQ(rig.fabric->cc_requests(), before);
  EXPECT_EQ(count(rig.log_text.str(), "IBSM-26"), 4u);

  // New settings (SIGHUP) give every port another try.
  conf::Options changed = rig.options;
  changed.cc_sw_cong_setting_marking_rate = 7;
  rig.node("h1").cc.at(1).status.reset();
  rig.sm->apply_options(changed);
  rig.sm->request_heavy_sweep(HeavyReason::kForced);
  EXPECT_TRUE(rig.sm->sweep(rig.flags.stop).subnet_up);
  rig.settle();
  EXPECT_GT(rig.fabric->cc_requests(), before);
  EXPECT_EQ(rig.node("h1").cc.at(1).held.size(), 3u);
}

// An answer with the Set's TID but another attribute is not its answer (a forged or
// broken one, mad/answer_match.hpp): dropped, counted and logged (IBSM-1016 naming the
// source LID); with nothing else coming back the port ends up silent.
TEST(CcProgramming, AnswersNotMatchingTheirSetAreDroppedNotTaken) {
  Rig rig;
  rig.node("s2").cc.at(0).wrong_attribute = true;
  EXPECT_TRUE(rig.bring_up().subnet_up);
  const std::string log = rig.log_text.str();
  const auto& c = rig.sm->congestion_control().counters();
  EXPECT_EQ(c.foreign, 1u + rig.options.transaction_retries);
  EXPECT_EQ(c.bad, 0u);
  EXPECT_EQ(c.silent, 1u);
  EXPECT_GE(count(log, "IBSM-1016: congestion control answer from LID"), 1u) << log;
  EXPECT_NE(log.find("attribute ID differs"), std::string::npos) << log;
  EXPECT_EQ(count(log, "IBSM-2602"), 1u) << log;
}

}  // namespace
}  // namespace ibsm::sm
