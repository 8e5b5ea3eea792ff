// LID assignment as a sweep component (sm/lids/), without a SubnetManager: the LIDs a
// discovered FakeFabric gets, the SM port's LID in the result, guid2lid kept, read and
// written (only when it changed, through the pure-work runner), and the options that
// change the rules (reassign_lids on the first master sweep, honor_guid2lid_file when
// leaving STANDBY, a LinearFDBCap too small for the ports).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "sm/errors.hpp"
#include "sm/lids/lid_assigner.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/sm/component_rig.hpp"

namespace ibsm::sm::lids {
namespace {

using testrig::ComponentRig;

struct LidRig : ComponentRig {
  explicit LidRig(fake::FakeOptions fo = {}) : ComponentRig(testrig::two_switches(), fo) {
    options.cache_dir = dir.path() + "/cache";
    discover();
  }
  LidResult assign(bool out_of_standby = false, bool first_master_sweep = true) {
    SweepContext c = ctx();
    c.first_master_sweep = first_master_sweep;
    return lids.assign(c, {out_of_standby});
  }
  std::string file() const {
    std::ifstream in(options.cache_dir + "/guid2lid");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  void write_file(const std::string& text) {
    std::filesystem::create_directories(options.cache_dir);
    std::ofstream(options.cache_dir + "/guid2lid") << text;
  }

  testsupport::TempDir dir;
  LidAssigner lids{log, log};
};

TEST(LidAssigner, ColdFabricGetsDistinctLidsAndTheSmPortLidOne) {
  LidRig rig;
  const LidResult r = rig.assign();
  ASSERT_TRUE(r.ok);
  ASSERT_TRUE(r.sm_lid.has_value());
  EXPECT_EQ(*r.sm_lid, 1);  // the SM's port first, as OpenSM
  EXPECT_EQ(rig.port("h1").lid, 1);
  std::set<Lid> seen;
  for (const auto& h : rig.model.lid_holders()) {
    const Port& p = rig.model.node(h.node).ports[h.port];
    EXPECT_NE(p.lid, 0);
    EXPECT_TRUE(seen.insert(p.lid).second) << "LID " << p.lid << " twice";
    ASSERT_TRUE(rig.lids.guid2lid().contains(p.guid));
    EXPECT_EQ(rig.lids.guid2lid().at(p.guid), (LidRange{p.lid, p.lid}));
  }
  EXPECT_EQ(seen.size(), 5u);  // three CA ports, two switch ports 0
  EXPECT_TRUE(rig.lids.dirty());
  EXPECT_TRUE(rig.report.clean());
}

TEST(LidAssigner, LmcGivesEndPortsAlignedRangesAndBaseSwitchPort0One) {
  LidRig rig;
  rig.options.lmc = 2;
  ASSERT_TRUE(rig.assign().ok);
  for (const auto& id : {"h1", "h2", "h3"}) {
    EXPECT_EQ(rig.port(id).lmc, 2) << id;
    EXPECT_EQ(rig.port(id).lid % 4, 0) << id;
  }
  EXPECT_EQ(rig.port("s1").lmc, 0);  // base port 0: one LID (IBA C14-3)
}

TEST(LidAssigner, SaveWritesGuid2LidThroughTheRunnerOnlyWhenItChanged) {
  LidRig rig;
  ASSERT_TRUE(rig.assign().ok);
  SweepContext c = rig.ctx();
  int handed_over = 0;
  c.run_pure = [&](const std::function<void()>& work) {
    ++handed_over;
    work();
  };
  rig.lids.save(c);
  EXPECT_EQ(handed_over, 1);
  EXPECT_FALSE(rig.lids.dirty());
  const std::string text = rig.file();
  EXPECT_NE(text.find("0x0001 0x0001"), std::string::npos) << text;
  // Nothing changed: no second write (the file removed meanwhile stays away).
  std::filesystem::remove(rig.options.cache_dir + "/guid2lid");
  ASSERT_TRUE(rig.assign().ok);
  rig.lids.save(c);
  EXPECT_EQ(handed_over, 1);
  EXPECT_FALSE(std::filesystem::exists(rig.options.cache_dir + "/guid2lid"));
}

TEST(LidAssigner, ANewSmReadsGuid2LidAndGivesPortsTheirRecordedLids) {
  LidRig rig;
  const Guid h2 = rig.port("h2").guid;
  const Guid h3 = rig.port("h3").guid;
  std::ostringstream text;
  text << fmt::format("0x{:016x} 0x0020 0x0020\n0x{:016x} 0x0030 0x0030\nnot a record\n", h2, h3);
  rig.write_file(text.str());
  rig.lids.load(rig.options.cache_dir);
  EXPECT_EQ(rig.lids.guid2lid().size(), 2u);
  EXPECT_NE(rig.log_text.str().find("IBSM-2206"), std::string::npos) << rig.log_text.str();
  ASSERT_TRUE(rig.assign().ok);
  EXPECT_EQ(rig.port("h2").lid, 0x20);
  EXPECT_EQ(rig.port("h3").lid, 0x30);
}

TEST(LidAssigner, ReportedLidsStayUnlessReassignOnTheFirstMasterSweep) {
  LidRig rig;
  rig.port("h2").info.lid = 0x40;  // what the port reports
  ASSERT_TRUE(rig.assign().ok);
  EXPECT_EQ(rig.port("h2").lid, 0x40);
  rig.options.reassign_lids = true;
  rig.lids.forget();
  ASSERT_TRUE(rig.assign(false, /*first_master_sweep=*/false).ok);
  EXPECT_EQ(rig.port("h2").lid, 0x40);  // -r only on the first sweep as master
  rig.lids.forget();
  ASSERT_TRUE(rig.assign(false, /*first_master_sweep=*/true).ok);
  EXPECT_NE(rig.port("h2").lid, 0x40);
}

TEST(LidAssigner, HonorGuid2LidWinsOverTheReportedLidOnlyLeavingStandby) {
  LidRig rig;
  const Guid h2 = rig.port("h2").guid;
  rig.write_file(fmt::format("0x{:016x} 0x0020 0x0020\n", h2));
  rig.lids.load(rig.options.cache_dir);
  rig.options.honor_guid2lid_file = true;
  rig.port("h2").info.lid = 0x40;
  ASSERT_TRUE(rig.assign(/*out_of_standby=*/false).ok);
  EXPECT_EQ(rig.port("h2").lid, 0x40);
  rig.lids.load(rig.options.cache_dir);
  ASSERT_TRUE(rig.assign(/*out_of_standby=*/true).ok);
  EXPECT_EQ(rig.port("h2").lid, 0x20);
}

TEST(LidAssigner, TooFewLidsForThePortsFailsWithAReportAndNoSmLid) {
  fake::FakeOptions fo;
  fo.linear_fdb_cap = 4;  // LIDs 1-3 for five holders
  LidRig rig(fo);
  const LidResult r = rig.assign();
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.sm_lid.has_value());
  ASSERT_FALSE(rig.report.clean());
  EXPECT_NE(rig.log_text.str().find("IBSM-"), std::string::npos);
}

TEST(LidAssigner, AFailedWriteIsLoggedAndTriedAgainNextTime) {
  LidRig rig;
  // The cache directory is a file: mkdir and the write fail.
  std::ofstream(rig.options.cache_dir) << "x";
  ASSERT_TRUE(rig.assign().ok);
  rig.lids.save(rig.ctx());
  EXPECT_NE(rig.log_text.str().find("IBSM-2207"), std::string::npos) << rig.log_text.str();
  EXPECT_TRUE(rig.lids.dirty());
  std::filesystem::remove(rig.options.cache_dir);
  rig.lids.save(rig.ctx());
  EXPECT_FALSE(rig.lids.dirty());
  EXPECT_FALSE(rig.file().empty());
}

}  // namespace
}  // namespace ibsm::sm::lids
