// M_Key end to end on a FakeFabric that enforces it (IBA 14.2.4): the SM programs
// m_key, the protection level and the lease into every CA port and switch port 0,
// presents the right key afterwards (also after a restart, from guid2mkey), takes
// over a port with an unknown key once its lease runs out, leaves an unreachable
// one alone, and applies its own port's M_Key to SMInfo requests. Plus the pure
// rules and the guid2mkey format.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "common/log.hpp"
#include "mad/attr/sm_info.hpp"
#include "sm/mkey/guid2mkey.hpp"
#include "sm/mkey/mkey_rules.hpp"
#include "sm/mkey/neighbors.hpp"
#include "sm/subnet_manager.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/net_file.hpp"
#include "tests/support/sweep_problems.hpp"
#include "tests/support/temp_dir.hpp"

namespace ibsm::sm::mkey_test {
namespace {

using namespace std::chrono_literals;
using fake::FakeFabric;
using mad::AttrId;
using mad::Method;

// h1 (the SM) and h2 on s1; h3 and h4 on s2.
constexpr std::string_view kNet = R"(Switch 3 "s1"
[1] "h1"[1]
[2] "s2"[1]
[3] "h2"[1]

Switch 3 "s2"
[1] "s1"[2]
[2] "h3"[1]
[3] "h4"[1]

Hca 1 "h1"
[1] "s1"[1]

Hca 1 "h2"
[1] "s1"[3]

Hca 1 "h3"
[1] "s2"[2]

Hca 1 "h4"
[1] "s2"[3]
)";

constexpr std::uint64_t kKey = 0x1234;

using testsupport::TempDir;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class Rig {
 public:
  Rig() {
    auto d = testsupport::parse_net(kNet);
    if (!d.ok()) std::abort();
    fabric = std::make_unique<FakeFabric>(*d, clock);
    options.cache_dir = dir.path() + "/cache";
    options.sm_priority = 7;
  }
  // A new SM process (guid2lid and guid2mkey are read again); its log goes to a file.
  void start() {
    LogSettings ls;
    ls.file = dir.path() + "/ibsm.log";
    ls.flags = 0x03;
    ls.flush_each = true;
    sm = std::make_unique<SubnetManager>(*fabric, clock, make_logger(ls), options);
  }
  SweepResult sweep() {
    fabric->reset_stats();
    return sm->sweep(stop);
  }
  SweepResult heavy_sweep() {
    sm->request_heavy_sweep(HeavyReason::kForced);
    return sweep();
  }
  std::string log() const { return read_text(dir.path() + "/ibsm.log"); }

  std::uint32_t idx(const std::string& id) const { return fabric->index(id); }
  // The port holding the node's key: a CA's port 1, a switch's port 0.
  mad::PortInfo& key_port(const std::string& id) {
    fake::FakeNode& n = fabric->node(idx(id));
    return n.ports[n.is_switch() ? 0 : 1].info;
  }
  mad::Guid port_guid(const std::string& id) const {
    const fake::FakeNode& n = fabric->node(idx(id));
    return n.is_switch() ? n.info.node_guid : n.info.node_guid + 1;
  }
  mkey::Guid2Mkey guid2mkey() const {
    auto p = mkey::parse_guid2mkey(read_text(options.cache_dir + "/guid2mkey"), "guid2mkey");
    EXPECT_TRUE(p.warnings.empty());
    return p.db;
  }

  FakeClock clock;
  TempDir dir;
  std::unique_ptr<FakeFabric> fabric;
  conf::Options options;
  std::atomic<bool> stop{false};
  std::unique_ptr<SubnetManager> sm;
};

const std::vector<std::string> kAll = {"s1", "s2", "h1", "h2", "h3", "h4"};

void expect_keys_programmed(Rig& rig, const std::vector<std::string>& ids, std::uint8_t level,
                            std::uint16_t lease) {
  const auto db = rig.guid2mkey();
  for (const auto& id : ids) {
    const mad::PortInfo& pi = rig.key_port(id);
    EXPECT_EQ(pi.m_key, kKey) << id;
    EXPECT_EQ(pi.m_key_protect_bits, level) << id;
    EXPECT_EQ(pi.m_key_lease_period, lease) << id;
    auto it = db.find(rig.port_guid(id));
    ASSERT_NE(it, db.end()) << id << " missing from guid2mkey";
    EXPECT_EQ(it->second, kKey) << id;
  }
}

using testsupport::problems;

// ---------------------------------------------------------------- pure rules

TEST(MkeyRules, ProtectionLevelAndLeaseAdjustedAsOpenSm) {
  EXPECT_EQ(mkey::effective_protection_level(3), 3);
  EXPECT_EQ(mkey::effective_protection_level(4), 2);
  EXPECT_EQ(mkey::effective_protection_level(200), 2);
  // A lease not longer than the sweep interval: sweep_interval + 1.
  EXPECT_EQ(mkey::effective_lease_period(2, 10, 10), 11);
  EXPECT_EQ(mkey::effective_lease_period(2, 5, 10), 11);
  EXPECT_EQ(mkey::effective_lease_period(2, 60, 10), 60);
  EXPECT_EQ(mkey::effective_lease_period(0, 5, 10), 5);  // unprotected: as given
  EXPECT_EQ(mkey::effective_lease_period(2, 0, 10), 0);  // never expires
  EXPECT_EQ(mkey::effective_sweep_interval(1, 60, 0), 59u);
  EXPECT_EQ(mkey::effective_sweep_interval(1, 60, 10), 10u);
  EXPECT_EQ(mkey::effective_sweep_interval(0, 60, 0), 0u);
}

TEST(MkeyRules, KeyReadTrustedOnlyFromKeyHoldersThatShowIt) {
  mad::PortInfo pi;
  pi.m_key = 0;
  pi.m_key_protect_bits = 1;
  EXPECT_FALSE(mkey::key_read_is_trustworthy(true, pi));  // hidden
  EXPECT_TRUE(mkey::key_unknown(pi));
  pi.m_key_protect_bits = 0;
  EXPECT_TRUE(mkey::key_read_is_trustworthy(true, pi));  // really 0
  pi.m_key = 7;
  pi.m_key_protect_bits = 3;
  EXPECT_TRUE(mkey::key_read_is_trustworthy(true, pi));
  EXPECT_FALSE(mkey::key_read_is_trustworthy(false, pi));  // switch port > 0
  EXPECT_FALSE(mkey::key_unknown(pi));
}

TEST(MkeyRules, SmInfoAccessFollowsOurPortsKey) {
  using mkey::SmInfoAccess;
  EXPECT_EQ(mkey::sminfo_access(Method::kGet, 0, 3, 9), SmInfoAccess::kAnswer);
  EXPECT_EQ(mkey::sminfo_access(Method::kSet, 0, 3, 9), SmInfoAccess::kAnswer);
  EXPECT_EQ(mkey::sminfo_access(Method::kGet, 5, 3, 5), SmInfoAccess::kAnswer);
  EXPECT_EQ(mkey::sminfo_access(Method::kGet, 5, 0, 9), SmInfoAccess::kAnswer);
  EXPECT_EQ(mkey::sminfo_access(Method::kGet, 5, 1, 9), SmInfoAccess::kAnswerNoSmKey);
  EXPECT_EQ(mkey::sminfo_access(Method::kGet, 5, 2, 9), SmInfoAccess::kDrop);
  EXPECT_EQ(mkey::sminfo_access(Method::kSet, 5, 0, 9), SmInfoAccess::kDrop);
  EXPECT_EQ(mkey::sminfo_access(Method::kSet, 5, 1, 5), SmInfoAccess::kAnswer);
}

TEST(Guid2Mkey, BadLinesAreSkippedWithFileAndLine) {
  const auto p = mkey::parse_guid2mkey(
      "0x0000000000000011 0x0000000000001234\n\n"
      "0x0000000000000012\n"  // no key
      "# comment\n"
      "0x0000000000000013 zz\n"
      "0x0000000000000000 0x1\n"  // GUID 0
      "0x0000000000000014 0x0000000000000000 extra\n"
      "0x0000000000000015 0xffffffffffffffff\n",
      "/c/guid2mkey");
  ASSERT_EQ(p.warnings.size(), 4u);
  EXPECT_EQ(p.warnings[0].rfind("/c/guid2mkey:3:", 0), 0u) << p.warnings[0];
  EXPECT_EQ(p.warnings[1].rfind("/c/guid2mkey:5:", 0), 0u) << p.warnings[1];
  EXPECT_EQ(p.db.size(), 2u);
  EXPECT_EQ(p.db.at(0x11), 0x1234u);
  EXPECT_EQ(p.db.at(0x15), 0xffffffffffffffffu);
  EXPECT_EQ(mkey::format_guid2mkey(p.db),
            "0x0000000000000011 0x0000000000001234\n\n0x0000000000000015 0xffffffffffffffff\n\n");
  EXPECT_EQ(mkey::parse_guid2mkey(mkey::format_guid2mkey(p.db), "x").db, p.db);
}

// ---------------------------------------------------------------- the fake's SMA rules

TEST(MkeyFake, WrongKeyGetsAnsweredByLevelSetsDroppedLeaseExpires) {
  Rig rig;
  mad::PortInfo& pi = rig.key_port("h1");  // the SM's own port: hop 0
  pi.m_key = 0xdead;
  pi.m_key_lease_period = 5;
  auto get = [&](std::uint64_t key) -> std::optional<mad::PortInfo> {
    auto smp = mad::Smp::request(Method::kGet, AttrId::kPortInfo, 0, mad::DrPath{}, 1, key);
    mad::OutgoingMad out;
    out.bytes = smp.bytes();
    EXPECT_TRUE(rig.fabric->send(out).ok());
    auto in = rig.fabric->receive(0ms);
    if (!in) return std::nullopt;
    auto r = mad::Smp::parse(in->bytes);
    return fake::decode_port_info_unchecked(r->data());
  };
  auto set = [&](std::uint64_t key) {
    auto smp = mad::Smp::request(Method::kSet, AttrId::kPortInfo, 0, mad::DrPath{}, 2, key);
    mad::PortInfo want = rig.key_port("h1");
    want.port_state = mad::PortState::kNoChange;
    smp.set_attribute(want);
    mad::OutgoingMad out;
    out.bytes = smp.bytes();
    EXPECT_TRUE(rig.fabric->send(out).ok());
    return rig.fabric->receive(0ms).has_value();
  };
  pi.m_key_protect_bits = 0;
  EXPECT_EQ(get(1)->m_key, 0xdeadu);  // level 0: shown
  pi.m_key_protect_bits = 1;
  EXPECT_EQ(get(1)->m_key, 0u);  // level 1: hidden
  EXPECT_EQ(get(0xdead)->m_key, 0xdeadu);
  EXPECT_EQ(pi.m_key_violations, 0);
  EXPECT_FALSE(set(1));  // dropped
  EXPECT_EQ(pi.m_key_violations, 1);
  EXPECT_TRUE(rig.fabric->mkey_lease_running(rig.idx("h1"), 1));
  pi.m_key_protect_bits = 2;
  EXPECT_FALSE(get(1).has_value());
  EXPECT_EQ(pi.m_key_violations, 2);
  EXPECT_TRUE(get(0xdead).has_value());  // a valid request stops the lease
  EXPECT_FALSE(rig.fabric->mkey_lease_running(rig.idx("h1"), 1));
  EXPECT_FALSE(set(1));
  rig.clock.advance(4s);
  rig.fabric->expire_mkey_leases();
  EXPECT_EQ(pi.m_key_protect_bits, 2);
  rig.clock.advance(1s);
  rig.fabric->expire_mkey_leases();
  EXPECT_EQ(pi.m_key_protect_bits, 0);  // lease over: key kept, protection gone
  EXPECT_EQ(get(1)->m_key, 0xdeadu);
  EXPECT_EQ(rig.fabric->stats().mkey_dropped, 3u);
}

// ---------------------------------------------------------------- the SM

TEST(MkeySm, ProgramsKeyLevelAndLeaseThenPresentsThemAcrossSweepsAndRestarts) {
  Rig rig;
  rig.options.m_key = kKey;
  rig.options.m_key_protection_level = 2;
  rig.options.m_key_lease_period = 60;
  rig.start();
  SweepResult r = rig.sweep();
  ASSERT_TRUE(r.subnet_up) << problems(r);
  EXPECT_EQ(rig.fabric->stats().mkey_dropped, 0u);
  EXPECT_TRUE(rig.fabric->inactive_ports().empty());
  expect_keys_programmed(rig, kAll, 2, 60);
  struct stat st {};
  ASSERT_EQ(::stat((rig.options.cache_dir + "/guid2mkey").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);  // it holds keys

  // Level 2 drops every request with a wrong key: all of these carry the right one.
  r = rig.heavy_sweep();
  ASSERT_TRUE(r.subnet_up) << problems(r);
  EXPECT_EQ(rig.fabric->stats().mkey_dropped, 0u);
  EXPECT_EQ(rig.fabric->stats().count(Method::kSet, AttrId::kPortInfo), 0u);  // all match

  rig.start();  // a new process: the keys come from guid2mkey
  EXPECT_EQ(rig.sm->mkeys().known().size(), kAll.size());
  r = rig.sweep();
  ASSERT_TRUE(r.subnet_up) << problems(r);
  EXPECT_EQ(rig.fabric->stats().mkey_dropped, 0u);
  for (const auto& id : kAll)
    EXPECT_EQ(rig.key_port(id).m_key_violations, 0) << id;
}

TEST(MkeySm, WithoutLookupEveryRequestCarriesMKey) {
  Rig rig;
  rig.options.m_key = kKey;
  rig.options.m_key_protection_level = 3;
  rig.options.m_key_lease_period = 60;
  rig.options.m_key_lookup = false;
  rig.start();
  ASSERT_TRUE(rig.sweep().subnet_up);
  expect_keys_programmed(rig, kAll, 3, 60);
  const SweepResult r = rig.heavy_sweep();
  ASSERT_TRUE(r.subnet_up) << problems(r);
  EXPECT_EQ(rig.fabric->stats().mkey_dropped, 0u);
}

TEST(MkeySm, LeaseShorterThanTheSweepIntervalIsRaised) {
  Rig rig;
  rig.options.m_key = kKey;
  rig.options.m_key_protection_level = 1;
  rig.options.m_key_lease_period = 5;  // sweep_interval 10
  rig.start();
  EXPECT_EQ(rig.sm->mkeys().settings().lease_period, 11);
  ASSERT_TRUE(rig.sweep().subnet_up);
  expect_keys_programmed(rig, kAll, 1, 11);
  EXPECT_NE(rig.log().find("lease period set to 11 s"), std::string::npos);
}

TEST(MkeySm, UnknownKeyAtLevel1IsReadableNotWritableUntilTheLeaseExpires) {
  Rig rig;
  rig.options.m_key = kKey;
  rig.options.m_key_protection_level = 2;
  rig.options.m_key_lease_period = 60;
  mad::PortInfo& h3 = rig.key_port("h3");
  h3.m_key = 0xdead;
  h3.m_key_protect_bits = 1;
  h3.m_key_lease_period = 5;
  rig.start();
  SweepResult r = rig.sweep();
  EXPECT_FALSE(r.subnet_up);
  EXPECT_EQ(r.nodes, 6u);  // Gets work: the node is seen
  EXPECT_GT(rig.fabric->stats().mkey_dropped, 0u);
  EXPECT_EQ(h3.m_key, 0xdeadu);
  EXPECT_GT(h3.m_key_violations, 0);
  expect_keys_programmed(rig, {"s1", "s2", "h1", "h2", "h4"}, 2, 60);
  const std::string log = rig.log();
  EXPECT_NE(log.find("has unknown M_Key, protection level 1"), std::string::npos) << log;
  EXPECT_NE(log.find("IBSM-2401"), std::string::npos) << log;
  EXPECT_NE(log.find("possible mis-set M_Key?"), std::string::npos);

  // Heavy sweeps retry; once the lease (5 s from the first violation) runs out the
  // port shows its key, the SM presents it and takes the port over.
  for (int i = 0; i < 20 && !r.subnet_up; ++i) {
    rig.clock.advance(1s);
    r = rig.sweep();
  }
  ASSERT_TRUE(r.subnet_up) << problems(r);
  EXPECT_TRUE(rig.fabric->inactive_ports().empty());
  expect_keys_programmed(rig, kAll, 2, 60);
}

TEST(MkeySm, UnknownKeyAtLevel2WithoutLeaseHidesThatNodeOnly) {
  Rig rig;
  rig.options.m_key = kKey;
  rig.options.m_key_protection_level = 2;
  rig.options.m_key_lease_period = 60;
  mad::PortInfo& h4 = rig.key_port("h4");
  h4.m_key = 0xdead;
  h4.m_key_protect_bits = 2;
  h4.m_key_lease_period = 0;
  rig.start();
  SweepResult r;
  for (int i = 0; i < 3; ++i) {
    rig.clock.advance(2s);
    r = rig.sweep();
    EXPECT_FALSE(r.subnet_up);
    EXPECT_EQ(r.nodes, 5u);  // h4 never answers
  }
  EXPECT_EQ(h4.m_key, 0xdeadu);
  EXPECT_EQ(h4.m_key_protect_bits, 2);
  EXPECT_GT(h4.m_key_violations, 0);
  expect_keys_programmed(rig, {"s1", "s2", "h1", "h2", "h3"}, 2, 60);
  const auto inactive = rig.fabric->inactive_ports();
  ASSERT_EQ(inactive.size(), 2u);  // the h4 link, seen from both ends
  for (const auto& p : inactive)
    EXPECT_TRUE(p.find("h4") != std::string::npos || p.find("s2/3") != std::string::npos) << p;
  EXPECT_NE(rig.log().find("IBSM-2402"), std::string::npos);
}

TEST(MkeySm, BadGuid2MkeyLinesAreWarnedAndTheGoodOnesUsed) {
  Rig rig;
  std::filesystem::create_directories(rig.options.cache_dir);
  // h3 already holds a key that only the file knows, at level 1: its PortInfo shows
  // 0, so only the file's key lets the SM write it. (At level 2 the first NodeInfo to
  // a port the SM cannot name yet needs OpenSM's neighbors cache, not done here.)
  mad::PortInfo& h3 = rig.key_port("h3");
  h3.m_key = 0xbeef;
  h3.m_key_protect_bits = 1;
  std::ofstream(rig.options.cache_dir + "/guid2mkey")
      << "0x" << std::hex << rig.port_guid("h3") << " 0xbeef\n\nnot a line\n0x12\n";
  rig.options.m_key = kKey;
  rig.options.m_key_protection_level = 2;
  rig.start();
  EXPECT_EQ(rig.sm->mkeys().known().size(), 1u);
  const std::string log = rig.log();
  EXPECT_NE(log.find("IBSM-2403: " + rig.options.cache_dir + "/guid2mkey:3:"), std::string::npos)
      << log;
  EXPECT_NE(log.find("guid2mkey:4:"), std::string::npos);
  const SweepResult r = rig.sweep();
  ASSERT_TRUE(r.subnet_up) << problems(r);
  EXPECT_EQ(rig.fabric->stats().mkey_dropped, 0u);
  expect_keys_programmed(rig, kAll, 2, 0);
}

TEST(MkeySm, RestartReachesPortsWithTheirOwnKeysThroughTheNeighborsCache) {
  Rig rig;
  rig.options.m_key = kKey;
  rig.options.m_key_protection_level = 2;
  rig.start();
  ASSERT_TRUE(rig.sweep().subnet_up);
  const auto neighbors =
      mkey::parse_neighbors(read_text(rig.options.cache_dir + "/neighbors"), "neighbors");
  EXPECT_TRUE(neighbors.warnings.empty());
  EXPECT_EQ(neighbors.db.size(), 2 * 5u);  // 5 cables, both directions
  EXPECT_EQ(neighbors.db.at({rig.port_guid("s2"), 2}), (mkey::PortEnd{rig.port_guid("h3"), 1}));

  // While the SM is down h3 gets a key of its own (another SM, an admin); the file
  // knows it. At level 2 even the first NodeInfo must carry it, before discovery has
  // seen h3: the neighbors cache names the port behind s2's port 2.
  rig.key_port("h3").m_key = 0xbeef;
  auto db = rig.guid2mkey();
  db[rig.port_guid("h3")] = 0xbeef;
  std::ofstream(rig.options.cache_dir + "/guid2mkey") << mkey::format_guid2mkey(db);
  rig.start();
  const SweepResult r = rig.sweep();
  ASSERT_TRUE(r.subnet_up) << problems(r);
  EXPECT_EQ(rig.fabric->stats().mkey_dropped, 0u);
  expect_keys_programmed(rig, kAll, 2, 0);
}

TEST(Neighbors, ParsesOpenSmsFormatAndDropsOneWayRecords) {
  const auto p = mkey::parse_neighbors(
      "0x0000000000000011:1 0x0000000000000022:3\n\n"
      "0x0000000000000022:3 0x0000000000000011:1\n"
      "0x0000000000000033:2 0x0000000000000044:1\n"  // no way back
      "0x0000000000000055 0x0000000000000066:1\n",   // no port
      "/c/neighbors");
  ASSERT_EQ(p.warnings.size(), 2u);
  EXPECT_EQ(p.warnings[0].rfind("/c/neighbors:5:", 0), 0u) << p.warnings[0];
  EXPECT_NE(p.warnings[1].find("does not point back"), std::string::npos);
  EXPECT_EQ(p.db.size(), 2u);
  EXPECT_EQ(mkey::format_neighbors(p.db),
            "0x0000000000000011:1 0x0000000000000022:3\n\n"
            "0x0000000000000022:3 0x0000000000000011:1\n\n");
}

mad::Smp sminfo(Method m, std::uint64_t m_key) {
  mad::Smp s = mad::Smp::request(
      m, AttrId::kSmInfo,
      m == Method::kSet ? static_cast<std::uint32_t>(mad::SmControl::kHandover) : 0, mad::Lid{1},
      0x77, m_key);
  mad::SmInfo info;
  info.guid = 0x99;
  info.state = mad::SmState::kMaster;
  s.set_attribute(info);
  return s;
}

// Asks our SM and returns its SMInfo answer, if any.
std::optional<mad::SmInfo> ask(Rig& rig, Method m, std::uint64_t m_key) {
  const std::size_t before = rig.fabric->sm_responses().size();
  rig.fabric->inject(sminfo(m, m_key), 7);
  ControlFlags control;
  for (int i = 0; i < 3; ++i)
    (void)rig.sm->step(control);
  for (std::size_t i = before; i < rig.fabric->sm_responses().size(); ++i) {
    const mad::Smp& s = rig.fabric->sm_responses()[i];
    if (s.attr_id() == AttrId::kSmInfo && s.is_response()) {
      auto info = mad::decode<mad::SmInfo>(s.data());
      if (info.ok()) return *info;
    }
  }
  return std::nullopt;
}

TEST(MkeySm, OwnPortKeyGuardsSmInfo) {
  {
    Rig rig;
    rig.options.m_key = kKey;
    rig.options.m_key_protection_level = 1;
    rig.options.sm_key = 0x55;
    rig.start();
    ASSERT_TRUE(rig.sweep().subnet_up);
    auto right = ask(rig, Method::kGet, kKey);
    ASSERT_TRUE(right);
    EXPECT_EQ(right->sm_key, 0x55u);
    auto wrong = ask(rig, Method::kGet, 0);
    ASSERT_TRUE(wrong);
    EXPECT_EQ(wrong->sm_key, 0u);             // level 1: answered, SM_Key hidden
    EXPECT_FALSE(ask(rig, Method::kSet, 0));  // a Set with a wrong key: dropped
    EXPECT_NE(rig.log().find("IBSM-2405"), std::string::npos);
    EXPECT_EQ(rig.sm->state(), mad::SmState::kMaster);
  }
  {
    Rig rig;
    rig.options.m_key = kKey;
    rig.options.m_key_protection_level = 2;
    rig.start();
    ASSERT_TRUE(rig.sweep().subnet_up);
    EXPECT_FALSE(ask(rig, Method::kGet, 0));  // level 2: dropped
    auto right = ask(rig, Method::kGet, kKey);
    ASSERT_TRUE(right);
    EXPECT_EQ(right->sm_key, 1u);
  }
  {
    Rig rig;  // no M_Key: everything answered as before
    rig.start();
    ASSERT_TRUE(rig.sweep().subnet_up);
    auto any = ask(rig, Method::kGet, 0x777);
    ASSERT_TRUE(any);
    EXPECT_EQ(any->sm_key, 1u);
  }
}

TEST(MkeySm, NoMkeyConfiguredChangesNothing) {
  Rig rig;
  rig.start();
  SweepResult r = rig.sweep();
  ASSERT_TRUE(r.subnet_up) << problems(r);
  const std::uint64_t sets = rig.fabric->stats().count(Method::kSet, AttrId::kPortInfo);
  EXPECT_EQ(sets, 2u + 4 * 5);  // switches + 4 per cable, as without M_Key support
  EXPECT_FALSE(rig.sm->mkeys().in_use());
  for (const auto& id : kAll) {
    const mad::PortInfo& pi = rig.key_port(id);
    EXPECT_EQ(pi.m_key, 0u) << id;
    EXPECT_EQ(pi.m_key_protect_bits, 0) << id;
    EXPECT_EQ(pi.m_key_lease_period, 0) << id;
  }
  r = rig.heavy_sweep();
  ASSERT_TRUE(r.subnet_up);
  EXPECT_EQ(rig.fabric->stats().count(Method::kSet, AttrId::kPortInfo), 0u);
  // As OpenSM: guid2mkey records every port, with key 0.
  const auto db = rig.guid2mkey();
  EXPECT_EQ(db.size(), kAll.size());
  for (const auto& [guid, key] : db)
    EXPECT_EQ(key, 0u) << mad::format_guid(guid);
}

}  // namespace
}  // namespace ibsm::sm::mkey_test
