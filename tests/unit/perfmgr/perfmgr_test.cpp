// PerfManager against FakePmaFabric on a FakeClock: what it asks (and how often),
// what it accumulates and logs, and how it survives bad PMAs.
#include <gtest/gtest.h>
#include <infiniband/mad.h>

#include <filesystem>
#include <functional>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "common/atomic_file.hpp"
#include "perfmgr/console.hpp"
#include "perfmgr/counter_snapshot.hpp"
#include "perfmgr/perf_manager.hpp"
#include "tests/support/log_capture.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/perfmgr/fake_pma.hpp"

namespace ibsm::perfmgr {
namespace {

using test::FakePmaFabric;
using test::PmaFault;

constexpr std::uint16_t kPc = static_cast<std::uint16_t>(PmAttr::kPortCounters);
constexpr std::uint16_t kPce = static_cast<std::uint16_t>(PmAttr::kPortCountersExtended);
constexpr std::uint16_t kCpi = static_cast<std::uint16_t>(PmAttr::kClassPortInfo);

// ---- wire layouts against libibmad's independent field tables ----

template <class A>
A random_attribute(std::mt19937_64& rng) {
  A a;
  for (const auto& f : A::kFields) {
    const std::uint64_t mask = f.width == 64 ? ~0ull : (1ull << f.width) - 1;
    a.*f.member = rng() & mask;
  }
  return a;
}

TEST(PerfMgtLayout, PortCountersMatchesLibibmad) {
  std::mt19937_64 rng(7);
  const std::pair<MAD_FIELDS, std::uint64_t PortCounters::*> pairs[] = {
      {IB_PC_PORT_SELECT_F, &PortCounters::port_select},
      {IB_PC_COUNTER_SELECT_F, &PortCounters::counter_select},
      {IB_PC_ERR_SYM_F, &PortCounters::symbol_error_counter},
      {IB_PC_LINK_RECOVERS_F, &PortCounters::link_error_recovery_counter},
      {IB_PC_LINK_DOWNED_F, &PortCounters::link_downed_counter},
      {IB_PC_ERR_RCV_F, &PortCounters::port_rcv_errors},
      {IB_PC_ERR_PHYSRCV_F, &PortCounters::port_rcv_remote_physical_errors},
      {IB_PC_ERR_SWITCH_REL_F, &PortCounters::port_rcv_switch_relay_errors},
      {IB_PC_XMT_DISCARDS_F, &PortCounters::port_xmit_discards},
      {IB_PC_ERR_XMTCONSTR_F, &PortCounters::port_xmit_constraint_errors},
      {IB_PC_ERR_RCVCONSTR_F, &PortCounters::port_rcv_constraint_errors},
      {IB_PC_COUNTER_SELECT2_F, &PortCounters::counter_select2},
      {IB_PC_ERR_LOCALINTEG_F, &PortCounters::local_link_integrity_errors},
      {IB_PC_ERR_EXCESS_OVR_F, &PortCounters::excessive_buffer_overrun_errors},
      {IB_PC_VL15_DROPPED_F, &PortCounters::vl15_dropped},
      {IB_PC_XMT_BYTES_F, &PortCounters::port_xmit_data},
      {IB_PC_RCV_BYTES_F, &PortCounters::port_rcv_data},
      {IB_PC_XMT_PKTS_F, &PortCounters::port_xmit_pkts},
      {IB_PC_RCV_PKTS_F, &PortCounters::port_rcv_pkts},
      {IB_PC_XMT_WAIT_F, &PortCounters::port_xmit_wait},
  };
  for (int round = 0; round < 100; ++round) {
    const auto a = random_attribute<PortCounters>(rng);
    std::array<std::uint8_t, kPmDataSize> buf{};
    encode_attribute(a, buf);
    for (const auto& [field, member] : pairs)
      EXPECT_EQ(mad_get_field(buf.data(), 0, field), a.*member) << mad_field_name(field);
    auto back = decode_attribute<PortCounters>(buf);
    ASSERT_TRUE(back.ok());
    for (const auto& f : PortCounters::kFields)
      EXPECT_EQ((*back).*f.member, a.*f.member) << f.name;
  }
}

TEST(PerfMgtLayout, PortCountersExtendedMatchesLibibmad) {
  std::mt19937_64 rng(8);
  const std::pair<MAD_FIELDS, std::uint64_t PortCountersExtended::*> pairs[] = {
      {IB_PC_EXT_PORT_SELECT_F, &PortCountersExtended::port_select},
      {IB_PC_EXT_COUNTER_SELECT_F, &PortCountersExtended::counter_select},
      {IB_PC_EXT_XMT_BYTES_F, &PortCountersExtended::port_xmit_data},
      {IB_PC_EXT_RCV_BYTES_F, &PortCountersExtended::port_rcv_data},
      {IB_PC_EXT_XMT_PKTS_F, &PortCountersExtended::port_xmit_pkts},
      {IB_PC_EXT_RCV_PKTS_F, &PortCountersExtended::port_rcv_pkts},
      {IB_PC_EXT_XMT_UPKTS_F, &PortCountersExtended::port_unicast_xmit_pkts},
      {IB_PC_EXT_RCV_UPKTS_F, &PortCountersExtended::port_unicast_rcv_pkts},
      {IB_PC_EXT_XMT_MPKTS_F, &PortCountersExtended::port_multicast_xmit_pkts},
      {IB_PC_EXT_RCV_MPKTS_F, &PortCountersExtended::port_multicast_rcv_pkts},
  };
  for (int round = 0; round < 100; ++round) {
    const auto a = random_attribute<PortCountersExtended>(rng);
    std::array<std::uint8_t, kPmDataSize> buf{};
    encode_attribute(a, buf);
    for (const auto& [field, member] : pairs) {
      const std::uint64_t got = member == &PortCountersExtended::port_select ||
                                        member == &PortCountersExtended::counter_select
                                    ? mad_get_field(buf.data(), 0, field)
                                    : mad_get_field64(buf.data(), 0, field);
      EXPECT_EQ(got, a.*member) << mad_field_name(field);
    }
  }
}

TEST(PerfMgtLayout, ClassPortInfoMatchesLibibmad) {
  std::mt19937_64 rng(9);
  const std::pair<MAD_FIELDS, std::uint64_t ClassPortInfo::*> pairs[] = {
      {IB_CPI_BASEVER_F, &ClassPortInfo::base_version},
      {IB_CPI_CLASSVER_F, &ClassPortInfo::class_version},
      {IB_CPI_CAPMASK_F, &ClassPortInfo::capability_mask},
      {IB_CPI_CAPMASK2_F, &ClassPortInfo::capability_mask2},
      {IB_CPI_RESP_TIME_VALUE_F, &ClassPortInfo::resp_time_value},
      {IB_CPI_REDIRECT_TC_F, &ClassPortInfo::redirect_tc},
      {IB_CPI_REDIRECT_SL_F, &ClassPortInfo::redirect_sl},
      {IB_CPI_REDIRECT_FL_F, &ClassPortInfo::redirect_fl},
      {IB_CPI_REDIRECT_LID_F, &ClassPortInfo::redirect_lid},
      {IB_CPI_REDIRECT_PKEY_F, &ClassPortInfo::redirect_pkey},
      {IB_CPI_REDIRECT_QP_F, &ClassPortInfo::redirect_qp},
      {IB_CPI_REDIRECT_QKEY_F, &ClassPortInfo::redirect_qkey},
      {IB_CPI_TRAP_TC_F, &ClassPortInfo::trap_tc},
      {IB_CPI_TRAP_SL_F, &ClassPortInfo::trap_sl},
      {IB_CPI_TRAP_FL_F, &ClassPortInfo::trap_fl},
      {IB_CPI_TRAP_LID_F, &ClassPortInfo::trap_lid},
      {IB_CPI_TRAP_PKEY_F, &ClassPortInfo::trap_pkey},
      {IB_CPI_TRAP_HL_F, &ClassPortInfo::trap_hl},
      {IB_CPI_TRAP_QP_F, &ClassPortInfo::trap_qp},
      {IB_CPI_TRAP_QKEY_F, &ClassPortInfo::trap_qkey},
  };
  for (int round = 0; round < 100; ++round) {
    const auto a = random_attribute<ClassPortInfo>(rng);
    std::array<std::uint8_t, kPmDataSize> buf{};
    encode_attribute(a, buf);
    for (const auto& [field, member] : pairs)
      EXPECT_EQ(mad_get_field(buf.data(), 0, field), a.*member) << mad_field_name(field);
  }
}

TEST(PerfMgtLayout, DecodersRefuseShortDataAndBadFrames) {
  std::array<std::uint8_t, 43> short_data{};
  EXPECT_FALSE(decode_attribute<PortCounters>(short_data).ok());
  std::array<std::uint8_t, 255> short_mad{};
  EXPECT_FALSE(parse_pm_answer(short_mad).ok());
  PmHeader h;
  h.method = kMethodGetResp;
  auto m = build_pm_mad(h);
  EXPECT_TRUE(parse_pm_answer(m).ok());
  m[1] = 0x03;
  EXPECT_FALSE(parse_pm_answer(m).ok());
  m[1] = kClassPerfMgt;
  m[3] = kMethodGet;
  EXPECT_FALSE(parse_pm_answer(m).ok());
}

// ---- the PerfMgr on a small fabric ----
//
//   CA "hostA" 0x200 (LID 2) port 1 -- port 1 switch "sw" 0x100 (LID 1) port 2 -- port 1 CA "hostB"
//   0x300 (LID 3) switch ports 3 and 4 are down.

class PerfMgrTest : public ::testing::Test {
 protected:
  PerfMgrTest() : fab(clock) {
    for (unsigned p : {1u, 2u, 3u, 4u})
      fab.pma(1).ports[p] = {};
    fab.pma(2).ports[1] = {};
    fab.pma(3).ports[1] = {};
    view = make_view();
  }

  std::shared_ptr<FabricView> make_view(bool with_b = true) const {
    auto v = std::make_shared<FabricView>();
    v->local_pkeys = {0xFFFF};
    ViewNode sw;
    sw.guid = 0x100;
    sw.name = "sw";
    sw.is_switch = true;
    sw.ports.resize(5);
    for (unsigned p = 0; p <= 4; ++p) {
      sw.ports[p].valid = p <= 2;
      sw.ports[p].lid = 1;
    }
    sw.ports[1].remote_valid = true;
    sw.ports[1].remote_guid = 0x200;
    sw.ports[1].remote_name = "hostA";
    sw.ports[1].remote_port = 1;
    sw.ports[2].remote_valid = with_b;
    sw.ports[2].remote_guid = 0x300;
    sw.ports[2].remote_name = "hostB";
    sw.ports[2].remote_port = 1;
    v->nodes.push_back(sw);
    for (auto [guid, name, lid] : {std::tuple{0x200, "hostA", 2}, std::tuple{0x300, "hostB", 3}}) {
      if (guid == 0x300 && !with_b) continue;
      ViewNode ca;
      ca.guid = static_cast<mad::Guid>(guid);
      ca.name = name;
      ca.ports.resize(2);
      ca.ports[1].valid = true;
      ca.ports[1].lid = static_cast<mad::Lid>(lid);
      ca.ports[1].remote_valid = true;
      ca.ports[1].remote_guid = 0x100;
      ca.ports[1].remote_name = "sw";
      ca.ports[1].remote_port = guid == 0x200 ? 1 : 2;
      v->nodes.push_back(ca);
    }
    return v;
  }

  PerfManager& pm() {
    if (!pm_) {
      pm_ = std::make_unique<PerfManager>(fab, clock, testsupport::capture_log(log), settings,
                                          [this] { return wall; });
      pm_->set_fabric(view);
    }
    return *pm_;
  }

  // One PerfMgr sweep, run to its end as the SM's loop would.
  void sweep() {
    const auto before = pm().stats().sweeps;
    pm().sweep_now();
    for (int i = 0; i < 100000 && pm().stats().sweeps == before; ++i) {
      pm().tick();
      if (auto in = fab.receive(std::chrono::milliseconds(10))) pm().handle(*in);
    }
    ASSERT_EQ(pm().stats().sweeps, before + 1) << "the sweep never ended";
    wall += 10;
  }

  // A console command as one thread runs it: carried out, then formatted.
  ConsoleReply console(const std::vector<std::string>& words, const std::string& dir) {
    return finish(perfmgr_command(pm(), words, dir));
  }

  FakePmaFabric::Sent last_sent() const { return fab.sent.back(); }
  std::uint64_t total_err(mad::Guid g, unsigned port, Err e) const {
    const DbPort* p = pm_->db().port(g, port);
    return p == nullptr ? ~0ull : p->err_total[e];
  }
  std::uint64_t total_data(mad::Guid g, unsigned port, Data d) const {
    const DbPort* p = pm_->db().port(g, port);
    return p == nullptr ? ~0ull : p->dc_total[d];
  }

  FakeClock clock;
  FakePmaFabric fab;
  std::ostringstream log;
  PerfSettings settings{.enabled = true};
  std::time_t wall = 1'800'000'000;
  std::shared_ptr<FabricView> view;
  std::unique_ptr<PerfManager> pm_;
};

TEST_F(PerfMgrTest, FirstSweepReadsEveryLivePortWithOneClassPortInfoPerPma) {
  sweep();
  // ClassPortInfo: one for the switch, one per CA port; then PortCounters and
  // PortCountersExtended of switch ports 1-2 and each CA port, all in the first sweep.
  EXPECT_EQ(fab.count(kCpi), 3u);
  EXPECT_EQ(fab.count(kPc), 4u);
  EXPECT_EQ(fab.count(kPce), 4u);
  for (const auto& s : fab.sent) {
    EXPECT_NE(s.port, 3u);
    EXPECT_NE(s.port, 4u);
  }
  // Later sweeps: ClassPortInfo is not asked again.
  fab.sent.clear();
  sweep();
  EXPECT_EQ(fab.count(kCpi), 0u);
  EXPECT_EQ(fab.count(kPc), 4u);
  EXPECT_EQ(fab.count(kPce), 4u);
}

TEST_F(PerfMgrTest, NoExtendedCountersWithoutTheCapability) {
  fab.pma(2).cap_mask = 0;
  sweep();
  EXPECT_EQ(fab.count(kPc), 4u);
  EXPECT_EQ(fab.count(kPce), 3u);  // not hostA's
}

TEST_F(PerfMgrTest, WithoutQueryCpiOnlyPortCountersAreRead) {
  settings.query_cpi = false;
  sweep();
  EXPECT_EQ(fab.count(kCpi), 0u);
  EXPECT_EQ(fab.count(kPc), 4u);
  EXPECT_EQ(fab.count(kPce), 0u);
}

TEST_F(PerfMgrTest, IgnoreCasQueriesSwitchesOnly) {
  settings.ignore_cas = true;
  sweep();
  for (const auto& s : fab.sent)
    EXPECT_EQ(s.lid, 1);
  EXPECT_EQ(pm().db().find(0x200), nullptr);
}

TEST_F(PerfMgrTest, ErrorIncreasesAreLoggedWithBothEndsAndAccumulated) {
  fab.pma(1).ports[1].pc.symbol_error_counter = 5;  // before the PerfMgr started
  sweep();
  EXPECT_EQ(total_err(0x100, 1, Err::kSymbol), 5u);
  EXPECT_EQ(log.str().find("IBSM-8506"), std::string::npos) << "nothing to compare with yet";
  fab.pma(1).ports[1].pc.symbol_error_counter = 12;
  fab.pma(1).ports[1].pc.port_rcv_errors = 3;
  sweep();
  EXPECT_EQ(total_err(0x100, 1, Err::kSymbol), 12u);
  EXPECT_EQ(total_err(0x100, 1, Err::kRcv), 3u);
  const std::string text = log.str();
  EXPECT_NE(text.find("IBSM-8506: SymbolErrorCounter : 7 : node \"sw\" (NodeGUID: "
                      "0x0000000000000100) : port 1 connected to \"hostA\" (NodeGUID: "
                      "0x0000000000000200) : port 1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("IBSM-8506: PortRcvErrors : 3"), std::string::npos);
}

TEST_F(PerfMgrTest, NoErrorLinesWhenLogErrorsIsOff) {
  settings.log_errors = false;
  sweep();
  fab.pma(3).ports[1].pc.link_downed_counter = 2;
  sweep();
  EXPECT_EQ(total_err(0x300, 1, Err::kLinkDowned), 2u);
  EXPECT_EQ(log.str().find("IBSM-8506"), std::string::npos);
}

TEST_F(PerfMgrTest, XmitWaitOverTheThresholdIsLogged) {
  settings.xmit_wait_log = true;
  settings.xmit_wait_threshold = 100;
  sweep();
  fab.pma(2).ports[1].pc.port_xmit_wait = 99;
  sweep();
  EXPECT_EQ(log.str().find("IBSM-8507"), std::string::npos);
  fab.pma(2).ports[1].pc.port_xmit_wait = 99 + 150;
  sweep();
  EXPECT_NE(log.str().find("IBSM-8507: XmitWait : 150 : node \"hostA\""), std::string::npos)
      << log.str();
  EXPECT_EQ(total_err(0x200, 1, Err::kXmitWait), 249u);
}

TEST_F(PerfMgrTest, DataCountersComeFromTheExtendedCountersWhereThereAreAny) {
  fab.pma(2).ports[1].pc.port_xmit_data = 0xFFFFFFFF;  // saturated 32-bit
  fab.pma(2).ports[1].pce.port_xmit_data = 123456789012ull;
  fab.pma(2).ports[1].pce.port_unicast_rcv_pkts = 77;
  sweep();
  EXPECT_EQ(total_data(0x200, 1, Data::kXmitData), 123456789012ull);
  EXPECT_EQ(total_data(0x200, 1, Data::kUnicastRcvPkts), 77u);
  // A saturated 32-bit data counter is no reason to clear where there are 64-bit ones.
  EXPECT_EQ(fab.count(kPc, kMethodSet), 0u);
}

TEST_F(PerfMgrTest, SaturatedDataCountersAreClearedOnlyWithoutExtendedCounters) {
  fab.pma(3).cap_mask = 0;  // hostB: 32-bit counters only
  fab.pma(3).ports[1].pc.port_rcv_data = 0xFFFFFFFF;
  sweep();
  EXPECT_EQ(total_data(0x300, 1, Data::kRcvData), 0xFFFFFFFFull);
  ASSERT_EQ(fab.count(kPc, kMethodSet), 1u);
  for (const auto& s : fab.sent) {
    if (s.method != kMethodSet) continue;
    EXPECT_EQ(s.lid, 3);
    EXPECT_EQ(s.counter_select, 0xFFFF);
  }
  EXPECT_EQ(fab.pma(3).ports[1].pc.port_rcv_data, 0u);  // the fake device took the clear
  // Traffic after the clear adds to the total; the clear itself is not counted as
  // traffic, nor as an out-of-band clear.
  fab.pma(3).ports[1].pc.port_rcv_data = 1000;
  sweep();
  EXPECT_EQ(total_data(0x300, 1, Data::kRcvData), 0xFFFFFFFFull + 1000);
  EXPECT_EQ(log.str().find("IBSM-8508"), std::string::npos) << log.str();
}

TEST_F(PerfMgrTest, ErrorCountersNearFullAreClearedKeepingTheDataCounters) {
  fab.pma(2).ports[1].pc.symbol_error_counter = 0xFFFF;
  sweep();
  ASSERT_EQ(fab.count(kPc, kMethodSet), 1u);
  for (const auto& s : fab.sent) {
    if (s.method == kMethodSet) {
      EXPECT_EQ(s.counter_select, 0x0FFF);
    }
  }
  fab.pma(2).ports[1].pc.symbol_error_counter = 4;
  sweep();
  EXPECT_EQ(total_err(0x200, 1, Err::kSymbol), 0xFFFFu + 4);
}

TEST_F(PerfMgrTest, CountersGoingBackwardsAreAnOutOfBandClear) {
  fab.pma(3).ports[1].pc.port_rcv_errors = 50;
  fab.pma(3).ports[1].pce.port_rcv_pkts = 5000;
  sweep();
  fab.pma(3).ports[1].pc.port_rcv_errors = 2;  // perfquery -R, then 2 more
  fab.pma(3).ports[1].pce.port_rcv_pkts = 10;
  sweep();
  EXPECT_EQ(total_err(0x300, 1, Err::kRcv), 52u);
  EXPECT_EQ(total_data(0x300, 1, Data::kRcvPkts), 5010u);
  EXPECT_NE(log.str().find("IBSM-8508: PerfMgr detected an out of band error clear on node "
                           "\"hostB\""),
            std::string::npos);
  EXPECT_NE(log.str().find("out of band data counter clear"), std::string::npos);
}

TEST_F(PerfMgrTest, NodesLeavingAreForgottenWithRmNodes) {
  sweep();
  pm().set_fabric(make_view(false));
  sweep();
  EXPECT_EQ(pm().db().find(0x300), nullptr);
  EXPECT_NE(log.str().find("IBSM-8509"), std::string::npos);
  // It comes back: monitored again, counting from its counters.
  fab.pma(3).ports[1].pc.port_xmit_discards = 9;
  pm().set_fabric(make_view(true));
  sweep();
  ASSERT_NE(pm().db().find(0x300), nullptr);
  EXPECT_TRUE(pm().db().find(0x300)->active);
  EXPECT_EQ(total_err(0x300, 1, Err::kXmitDiscards), 9u);
}

TEST_F(PerfMgrTest, NodesLeavingStayInactiveWithoutRmNodes) {
  settings.rm_nodes = false;
  fab.pma(3).ports[1].pc.port_xmit_discards = 4;
  sweep();
  pm().set_fabric(make_view(false));
  sweep();
  const DbNode* b = pm().db().find(0x300);
  ASSERT_NE(b, nullptr);
  EXPECT_FALSE(b->active);
  EXPECT_EQ(total_err(0x300, 1, Err::kXmitDiscards), 4u);
  EXPECT_NE(pm().db().dump_mach().find("hostB\t0x300\tFALSE\t1\t"), std::string::npos);
  // Back: active again, totals kept and grown.
  fab.pma(3).ports[1].pc.port_xmit_discards = 6;
  pm().set_fabric(make_view(true));
  sweep();
  EXPECT_TRUE(pm().db().find(0x300)->active);
  EXPECT_EQ(total_err(0x300, 1, Err::kXmitDiscards), 6u);
}

TEST_F(PerfMgrTest, SilentAndBadPmasAreLoggedAndTheSweepGoesOn) {
  fab.pma(2).fault = PmaFault::kSilent;
  fab.pma(3).fault = PmaFault::kTruncated;
  fab.pma(1).fault = PmaFault::kBadStatus;
  sweep();
  const std::string text = log.str();
  EXPECT_NE(text.find("IBSM-8501: PerfMgr Get(ClassPortInfo) of node \"hostA\""), std::string::npos)
      << text;
  EXPECT_NE(text.find("IBSM-8503"), std::string::npos);  // truncated
  EXPECT_NE(text.find("IBSM-8502"), std::string::npos);  // bad status
  // Retries: transaction_retries more attempts for the silent one, no more.
  std::size_t to_a = 0;
  for (const auto& s : fab.sent)
    to_a += s.lid == 2 ? 1 : 0;
  EXPECT_EQ(to_a, 1u + settings.retries);
  // A healthy port in the same sweep was still read.
  fab.pma(1).fault = PmaFault::kNone;
  fab.pma(1).ports[2].pc.port_rcv_errors = 1;
  sweep();
  EXPECT_EQ(total_err(0x100, 2, Err::kRcv), 1u);
}

TEST_F(PerfMgrTest, OversizedWrongAttributeAndWrongPortAnswersAreDropped) {
  for (auto fault : {PmaFault::kOversized, PmaFault::kWrongAttr, PmaFault::kWrongPort}) {
    fab.pma(2).fault = fault;
    fab.pma(2).ports[1].pc.port_rcv_errors = 3;
    sweep();
    EXPECT_EQ(total_err(0x200, 1, Err::kRcv), 0u) << static_cast<int>(fault);
  }
  EXPECT_NE(log.str().find("IBSM-8503"), std::string::npos);
}

TEST_F(PerfMgrTest, FailureLinesAreRateLimitedPerSweep) {
  settings.log_lines_per_sweep = 1;
  settings.retries = 0;
  fab.pma(1).fault = PmaFault::kSilent;
  fab.pma(2).fault = PmaFault::kSilent;
  fab.pma(3).fault = PmaFault::kSilent;
  sweep();
  const std::string text = log.str();
  std::size_t lines = 0;
  for (std::size_t at = text.find("IBSM-8501: PerfMgr Get"); at != std::string::npos;
       at = text.find("IBSM-8501: PerfMgr Get", at + 1))
    ++lines;
  EXPECT_EQ(lines, 1u);
  EXPECT_NE(text.find("IBSM-8501: 2 more such PerfMgr lines"), std::string::npos) << text;
}

TEST_F(PerfMgrTest, RedirectionIsFollowedToTheNewQpOfTheNodesOwnLid) {
  ClassPortInfo r;
  r.redirect_lid = 2;
  r.redirect_qp = 0x55;
  r.redirect_pkey = 0xFFFF;
  r.redirect_qkey = 0x80010000;
  fab.pma(2).redirect = r;
  auto& target = fab.pma(2, 0x55);
  target.ports[1].pc.port_rcv_errors = 6;
  sweep();
  EXPECT_EQ(total_err(0x200, 1, Err::kRcv), 6u);
  EXPECT_NE(pm().dump_redirections().find("redirected to LID 2 QP 0x55"), std::string::npos);
  // Redirected to nowhere: the PMA there dies; the redirection is dropped and the
  // next sweep asks the port's own LID, which redirects again.
  fab.pma(2, 0x55).fault = PmaFault::kSilent;
  sweep();
  EXPECT_NE(log.str().find("redirection dropped"), std::string::npos) << log.str();
  fab.sent.clear();
  sweep();
  bool asked_own_lid = false;
  for (const auto& s : fab.sent)
    asked_own_lid = asked_own_lid || (s.lid == 2 && s.attr == kCpi);
  EXPECT_TRUE(asked_own_lid);
}

// A redirection to another node's LID would let whoever answers there report (and have
// cleared) this node's counters: refused, and the port is read at its own LID.
TEST_F(PerfMgrTest, RedirectionToAnotherNodesLidIsRefused) {
  for (mad::Lid elsewhere : {mad::Lid{3}, mad::Lid{9}}) {
    SCOPED_TRACE(elsewhere);
    ClassPortInfo r;
    r.redirect_lid = elsewhere;
    r.redirect_qp = 1;
    r.redirect_pkey = 0xFFFF;
    r.redirect_qkey = 0x80010000;
    fab.pma(2).redirect = r;
    fab.pma(elsewhere).ports[1].pc.port_rcv_errors = 50;  // what the forger would report
    fab.pma(2).ports[1].pc.port_rcv_errors = 4;
    pm_.reset();
    log.str("");
    sweep();
    const std::string text = log.str();
    EXPECT_NE(text.find("IBSM-8513: PerfMgr redirection of node \"hostA\""), std::string::npos)
        << text;
    EXPECT_NE(text.find("to LID " + std::to_string(elsewhere) + " refused"), std::string::npos);
    EXPECT_EQ(pm().dump_redirections().find("redirected to"), std::string::npos);
    for (const auto& sent : fab.sent)
      EXPECT_FALSE(sent.lid == elsewhere && sent.attr == kPc && sent.port == 1 &&
                   sent.method == kMethodSet)
          << "a clear went to the redirection's target";
    // Without ClassPortInfo the port is still read where it is (and only there).
    sweep();
    EXPECT_EQ(total_err(0x200, 1, Err::kRcv), 4u);
    fab.pma(elsewhere).ports.clear();
  }
}

// A forged answer with a live TID (right TID, wrong source, modifier, PortSelect,
// method or attribute), carrying counters near saturation, changes no counter and
// clears nothing; each is counted and logged (IBSM-8512) naming the claimed source,
// and the real answer is still taken.
TEST_F(PerfMgrTest, ForgedAnswersChangeNoCounterAndClearNothing) {
  sweep();  // ClassPortInfo known: the next sweep reads counters only
  fab.pma(2).ports[1].pc.port_rcv_errors = 3;
  fab.latency = std::chrono::milliseconds(50);  // the forger answers first
  struct Forgery {
    const char* what;
    mad::Lid slid;
    std::function<void(std::array<std::uint8_t, kMadSize>&)> spoil;
    const char* logged;
  };
  const Forgery forgeries[] = {
      {"source", 3, [](auto&) {}, "source LID"},
      {"modifier", 2, [](auto& b) { b[23] = 1; }, "attribute modifier"},
      {"port", 2, [](auto& b) { b[64 + 1] = 2; }, "PortSelect"},
      {"method", 2, [](auto& b) { b[3] = 0x82; }, "not GetResp"},
      {"attribute", 2, [](auto& b) { b[17] = 0x1D; }, "attribute ID"},
  };
  std::set<std::uint32_t> forged_for;
  const std::size_t first = fab.sent.size();  // this sweep's queries only
  const auto forge = [&] {
    for (std::size_t i = first; i < fab.sent.size(); ++i) {
      const auto& q = fab.sent[i];
      if (q.lid != 2 || q.attr != kPc || q.method != kMethodGet || !forged_for.insert(q.tid).second)
        continue;
      for (const Forgery& f : forgeries) {
        PortCounters pc;
        pc.port_select = 1;
        pc.counter_select = 0xFFFF;
        pc.port_rcv_errors = 0xFFF0;  // near full: the old PerfMgr cleared the port
        pc.symbol_error_counter = 0xFFF0;
        std::array<std::uint8_t, kPmDataSize> data{};
        encode_attribute(pc, data);
        PmHeader h;
        h.method = kMethodGetResp;
        h.tid = std::uint64_t{0x2a} << 40 | q.tid;
        h.attr_id = kPc;
        auto bytes = build_pm_mad(h, data);
        f.spoil(bytes);
        mad::IncomingMad in;
        std::copy(bytes.begin(), bytes.end(), in.bytes.begin());
        in.length = kMadSize;
        in.slid = f.slid;
        in.sqpn = 1;
        fab.inject(in);
      }
    }
  };
  const auto before = pm().stats().sweeps;
  pm().sweep_now();
  for (int i = 0; i < 100000 && pm().stats().sweeps == before; ++i) {
    pm().tick();
    forge();
    if (auto in = fab.receive(std::chrono::milliseconds(10))) pm().handle(*in);
  }
  ASSERT_EQ(pm().stats().sweeps, before + 1);
  ASSERT_EQ(forged_for.size(), 1u);
  EXPECT_EQ(pm().stats().refused, std::size(forgeries));
  EXPECT_EQ(total_err(0x200, 1, Err::kRcv), 3u);
  EXPECT_EQ(total_err(0x200, 1, Err::kSymbol), 0u);
  EXPECT_EQ(fab.count(kPc, kMethodSet), 0u) << "a forged answer had the port cleared";
  EXPECT_EQ(pm().stats().clears, 0u);
  EXPECT_EQ(pm().stats().timeouts, 0u);  // the real answer was taken
  const std::string text = log.str();
  EXPECT_NE(text.find("IBSM-8512: PerfMgt answer from LID 3"), std::string::npos) << text;
  for (const Forgery& f : forgeries)
    EXPECT_NE(text.find(f.logged), std::string::npos) << f.what << "\n" << text;
  EXPECT_NE(text.find("of node \"hostA\" (NodeGUID: 0x0000000000000200) port 1 at LID 2"),
            std::string::npos)
      << text;
}

TEST_F(PerfMgrTest, InvalidOrDisabledRedirectionIsNotFollowed) {
  ClassPortInfo r;
  r.redirect_lid = 0;  // and GID 0: nowhere
  r.redirect_qp = 0x55;
  r.redirect_pkey = 0xFFFF;
  r.redirect_qkey = 0x80010000;
  fab.pma(2).redirect = r;
  sweep();
  EXPECT_NE(log.str().find("IBSM-8504: PerfMgr redirection of node \"hostA\""), std::string::npos);
  EXPECT_NE(log.str().find("both redirect LID and GID are zero"), std::string::npos);
  r.redirect_lid = 2;  // the node's own LID (another node's is refused as such)
  fab.pma(2).redirect = r;
  settings.redirect = false;
  pm_.reset();
  sweep();
  EXPECT_NE(log.str().find("perfmgr_redir FALSE"), std::string::npos);
}

TEST_F(PerfMgrTest, PausedMeansNoQueryLeaves) {
  pm().set_paused(true);
  pm().sweep_now();
  for (int i = 0; i < 10; ++i) {
    pm().tick();
    if (auto in = fab.receive(std::chrono::milliseconds(10))) pm().handle(*in);
  }
  EXPECT_TRUE(fab.sent.empty());
  pm().set_paused(false);
  pm().tick();
  EXPECT_FALSE(fab.sent.empty());
}

TEST_F(PerfMgrTest, PausingMidSweepStopsTheFlowAndAnswersStillCount) {
  settings.max_outstanding = 2;
  pm().sweep_now();
  pm().tick();
  EXPECT_EQ(pm().outstanding(), 2u);
  pm().set_paused(true);
  const auto sent_before = fab.sent.size();
  for (int i = 0; i < 10; ++i)
    if (auto in = fab.receive(std::chrono::milliseconds(10))) pm().handle(*in);
  EXPECT_EQ(fab.sent.size(), sent_before);
  EXPECT_EQ(pm().outstanding(), 0u);
  EXPECT_EQ(pm().stats().received, 2u);
}

TEST_F(PerfMgrTest, NeverMoreOutstandingThanTheWindow) {
  settings.max_outstanding = 3;
  sweep();
  EXPECT_LE(pm().stats().peak_outstanding, 3u);
  EXPECT_EQ(perf_window(500, 20), 4u);  // umad2sim
  EXPECT_EQ(perf_window(500, 0), 500u);
  EXPECT_EQ(perf_window(0, 0), 1u);
}

TEST_F(PerfMgrTest, NothingIsDueBeforeTheFirstFabric) {
  view.reset();
  EXPECT_FALSE(pm().next_due().has_value());
  pm().tick();
  EXPECT_TRUE(fab.sent.empty());
  pm().set_fabric(make_view());
  ASSERT_TRUE(pm().next_due().has_value());
  EXPECT_LE(*pm().next_due(), clock.now());
}

TEST_F(PerfMgrTest, SweepsFollowTheSweepTime) {
  settings.sweep_time = std::chrono::seconds(5);
  pm().tick();  // the first sweep starts at once
  EXPECT_EQ(pm().sweep_state(), SweepState::kActive);
  const auto start = clock.now();
  while (pm().sweep_state() == SweepState::kActive) {
    if (auto in = fab.receive(std::chrono::milliseconds(10))) pm().handle(*in);
    pm().tick();
  }
  fab.sent.clear();
  while (clock.now() < start + std::chrono::milliseconds(4900)) {
    clock.advance(std::chrono::milliseconds(100));
    pm().tick();
  }
  EXPECT_TRUE(fab.sent.empty());
  clock.set(start + std::chrono::seconds(5));
  pm().tick();
  EXPECT_FALSE(fab.sent.empty());
}

TEST_F(PerfMgrTest, DumpIsOpenSmsMachineFormat) {
  testsupport::TempDir dir;
  settings.dump_file = dir.path() + "/counters.log";
  fab.pma(1).ports[2].pc.port_xmit_discards = 4;
  fab.pma(1).ports[2].pce.port_xmit_data = 99;
  sweep();
  pm().wait_for_dump();
  auto text = read_file(settings.dump_file);
  ASSERT_TRUE(text.ok());
  std::istringstream in(*text);
  std::string line;
  std::vector<std::vector<std::string>> rows;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<std::string> cols;
    std::istringstream ls(line);
    std::string c;
    while (std::getline(ls, c, '\t'))
      cols.push_back(c);
    rows.push_back(cols);
  }
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows[0].size(), 28u);
  EXPECT_EQ(rows[0][0], "Name");
  EXPECT_EQ(rows[0][7], "symbol_err_cnt");
  EXPECT_EQ(rows[0][27], "multicast_rcv_pkts");
  bool found = false;
  for (const auto& r : rows) {
    if (r.size() == 28 && r[0] == "sw" && r[3] == "2") {
      found = true;
      EXPECT_EQ(r[1], "0x100");
      EXPECT_EQ(r[2], "TRUE");
      EXPECT_EQ(r[13], "4");   // xmit_discards
      EXPECT_EQ(r[20], "99");  // xmit_data
    }
  }
  EXPECT_TRUE(found) << *text;
}

TEST_F(PerfMgrTest, ConsoleCommands) {
  sweep();
  auto r = console({}, "");
  EXPECT_NE(r.text.find("state                   : Enabled"), std::string::npos) << r.text;
  r = console({"sweep_time", "30"}, "");
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(pm().settings().sweep_time, std::chrono::seconds(30));
  EXPECT_FALSE(console({"sweep_time", "0"}, "").ok);
  EXPECT_FALSE(console({"sweep_time", "x"}, "").ok);
  EXPECT_TRUE(console({"xmit_wait_threshold", "0x10"}, "").ok);
  EXPECT_EQ(pm().settings().xmit_wait_threshold, 16u);
  EXPECT_TRUE(console({"clear_rm_nodes"}, "").ok);
  EXPECT_FALSE(pm().settings().rm_nodes);
  EXPECT_TRUE(console({"clear_query_cpi"}, "").ok);
  EXPECT_FALSE(pm().settings().query_cpi);
  r = console({"print_counters", "hostA"}, "");
  EXPECT_NE(r.text.find("\"hostA\" 0x200 active TRUE port 1"), std::string::npos) << r.text;
  r = console({"print_counters", "0x100", "2"}, "");
  EXPECT_NE(r.text.find("port 2"), std::string::npos);
  EXPECT_EQ(r.text.find("port 1\n"), std::string::npos);
  EXPECT_NE(console({"print_counters", "nobody"}, "").text.find("not found"), std::string::npos);
  fab.pma(3).ports[1].pc.vl15_dropped = 1;
  sweep();
  r = console({"print_errors"}, "");
  EXPECT_NE(r.text.find("\"hostB\" 0x300"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("\"hostA\""), std::string::npos);
  EXPECT_TRUE(console({"clear_counters"}, "").ok);
  EXPECT_EQ(total_err(0x300, 1, Err::kVl15Dropped), 0u);
  EXPECT_TRUE(console({"disable"}, "").ok);
  EXPECT_FALSE(pm().enabled());
  EXPECT_FALSE(console({"bogus"}, "").ok);
  testsupport::TempDir dir;
  EXPECT_TRUE(console({"dump_counters", "mach"}, dir.path()).ok);
  EXPECT_TRUE(read_file(dir.path() + "/opensm_port_counters.log").ok());
}

// A copy of the database shares every node (a pointer each); a node is copied only
// when one side changes it while the other still holds it, and neither side sees the
// other's changes.
TEST(CounterDbCopy, SharesNodesAndCopiesANodeOnlyWhenItChanges) {
  CounterDb db;
  db.create(0x1, false, 2, "a", 100);
  db.create(0x2, false, 2, "b", 100);
  ErrReading e;
  e[Err::kSymbol] = 3;
  ASSERT_TRUE(db.add_err(0x1, 1, e));
  ASSERT_TRUE(db.add_err(0x2, 1, e));
  const CounterDb copy = db;
  const CounterDb& original = db;
  EXPECT_EQ(original.find(0x1), copy.find(0x1));  // shared, not copied
  EXPECT_EQ(original.find(0x2), copy.find(0x2));
  e[Err::kSymbol] = 10;
  ASSERT_TRUE(db.add_err(0x1, 1, e));
  EXPECT_NE(original.find(0x1), copy.find(0x1));  // changed: copied first
  EXPECT_EQ(original.find(0x2), copy.find(0x2));  // untouched: still shared
  EXPECT_EQ(db.port(0x1, 1)->err_total[Err::kSymbol], 10u);
  EXPECT_EQ(copy.port(0x1, 1)->err_total[Err::kSymbol], 3u);
  // A refused update (unknown port) copies nothing.
  EXPECT_FALSE(db.add_err(0x2, 7, e));
  EXPECT_EQ(original.find(0x2), copy.find(0x2));
  db.clear_totals(200);
  EXPECT_EQ(db.port(0x2, 1)->err_total[Err::kSymbol], 0u);
  EXPECT_EQ(copy.port(0x2, 1)->err_total[Err::kSymbol], 3u);
  db.erase(0x1);
  EXPECT_EQ(copy.port(0x1, 1)->err_total[Err::kSymbol], 3u);  // the copy keeps its node
  // A node once copied is the database's own again: later changes are made in place.
  const DbNode* own = original.find(0x2);
  ASSERT_TRUE(db.add_err(0x2, 1, e));
  EXPECT_EQ(own, original.find(0x2));
}

// The PerfMgr's thread is the SM's: a counter read costs it a copy of what is printed
// (one node for print_counters NODE), never the formatting or the file; both are left
// to whoever calls `format`, which prints the counters as they were when asked.
TEST_F(PerfMgrTest, CounterReadsOnlyCopyOnThePerfMgrsThread) {
  fab.pma(3).ports[1].pc.vl15_dropped = 1;
  fab.pma(1).ports[2].pce.port_xmit_data = 77;
  sweep();
  testsupport::TempDir dir;
  const std::string dump = dir.path() + "/opensm_port_counters.log";
  auto errors = perfmgr_command(pm(), {"print_errors"}, "");
  auto node = perfmgr_command(pm(), {"print_counters", "hostB"}, "");
  auto port = perfmgr_command(pm(), {"print_counters", "0x100", "2"}, "");
  auto file = perfmgr_command(pm(), {"dump_counters", "mach"}, dir.path());
  for (const ConsoleReply* r : {&errors, &node, &port, &file}) {
    EXPECT_TRUE(r->ok);
    EXPECT_TRUE(r->text.empty()) << r->text;  // nothing formatted here
    EXPECT_TRUE(r->format);
  }
  EXPECT_FALSE(std::filesystem::exists(dump));  // nor written
  const std::string want_errors = pm().db().dump_human(true);
  const std::string want_node = pm().db().print_node("hostB", "", false);
  const std::string want_port = pm().db().print_node("0x100", "2", false);
  const std::string want_file = pm().db().dump_mach();
  // print_counters NODE copies that node alone.
  EXPECT_EQ(pm().db().subset("hostB").size(), 1u);
  EXPECT_EQ(pm().db().subset("0x100").size(), 1u);
  EXPECT_TRUE(pm().db().subset("nobody").size() == 0);
  EXPECT_NE(want_node.find("\"hostB\" 0x300"), std::string::npos) << want_node;

  // The counters move on (another sweep, a clear) before anyone formats the answers.
  fab.pma(3).ports[1].pc.vl15_dropped = 5;
  sweep();
  ASSERT_TRUE(console({"clear_counters"}, "").ok);
  std::vector<ConsoleReply> done(4);
  std::thread other([&] {
    done[0] = errors.format();
    done[1] = node.format();
    done[2] = port.format();
    done[3] = file.format();
  });
  other.join();
  EXPECT_EQ(done[0].text, want_errors);
  EXPECT_NE(done[0].text.find("vl15_dropped         : 1\n"), std::string::npos) << done[0].text;
  EXPECT_EQ(done[1].text, want_node);
  EXPECT_EQ(done[2].text, want_port);
  EXPECT_TRUE(done[3].ok);
  auto written = read_file(dump);
  ASSERT_TRUE(written.ok());
  EXPECT_EQ(*written, want_file);
  EXPECT_NE(console({"print_counters", "nobody"}, "").text.find("Node nobody not found"),
            std::string::npos);
  // A dump that cannot be written fails when it is written, with the path.
  auto bad = perfmgr_command(pm(), {"dump_counters"}, dir.path() + "/no/such/dir");
  ASSERT_TRUE(bad.format);
  const ConsoleReply failed = bad.format();
  EXPECT_FALSE(failed.ok);
  EXPECT_NE(failed.text.find("no/such/dir"), std::string::npos) << failed.text;
}

// event_db_dump_file is written on the dump writer's thread (perfmgr/dump_writer.hpp):
// the newest dump wins over one still waiting, and a failure is logged, not thrown.
TEST(DumpWriter, WritesTheNewestDumpAndLogsFailures) {
  testsupport::TempDir dir;
  std::ostringstream out;
  const std::string path = dir.path() + "/counters.log";
  {
    DumpWriter writer(testsupport::capture_log(out));
    for (int i = 0; i < 20; ++i) {
      CounterDb db;
      const std::uint64_t guid = 0x1000 + static_cast<std::uint64_t>(i);
      db.create(guid, false, 2, "node" + std::to_string(i), 0);
      ASSERT_TRUE(db.add_err(guid, 1, ErrReading{}));  // a port with counters: a dump row
      writer.submit(std::move(db), true, path);
    }
    writer.wait_idle();
    EXPECT_GE(writer.written(), 1U);
    EXPECT_LE(writer.written(), 20U);
    auto text = read_file(path);
    ASSERT_TRUE(text.ok());
    EXPECT_NE(text->find("node19"), std::string::npos) << *text;
    EXPECT_EQ(text->find("node18"), std::string::npos) << *text;
    writer.submit(CounterDb{}, true, dir.path() + "/no/such/dir/counters.log");
  }  // the destructor writes what waits
  EXPECT_NE(out.str().find("IBSM-8510"), std::string::npos) << out.str();
}

// The infiniband_speed metric's values, decoded by mad/attr/port_speeds: the signalling
// rate of LinkSpeedExtActive when it names one speed, else of LinkSpeedActive.
TEST(CounterSnapshot, LaneGbpsIsTheSignallingRateOfTheActiveSpeed) {
  EXPECT_EQ(lane_gbps(1, 0), 2.5);
  EXPECT_EQ(lane_gbps(2, 0), 5.0);
  EXPECT_EQ(lane_gbps(4, 0), 10.0);
  EXPECT_EQ(lane_gbps(4, 1), 14.0625);
  EXPECT_EQ(lane_gbps(4, 2), 25.78125);
  EXPECT_EQ(lane_gbps(4, 4), 53.125);
  EXPECT_EQ(lane_gbps(4, 8), 106.25);
  EXPECT_EQ(lane_gbps(4, 3), 10.0);  // not one extended speed: the classic one
  EXPECT_EQ(lane_gbps(0, 0), 0.0);
  EXPECT_EQ(lane_gbps(8, 16), 0.0);
}

}  // namespace
}  // namespace ibsm::perfmgr
