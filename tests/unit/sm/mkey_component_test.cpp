// The M_Key seam as a sweep component (sm/mkey/sweep_keys.hpp), without a SubnetManager:
// discovery on a FakeFabric that enforces M_Keys with the component as the SmpClient's
// resolver, the key a DR path or a LID resolves to, the hint on lost requests, guid2mkey
// and the neighbors cache written and read, the sweep interval a protected lease needs,
// and our own port's key on SMInfo requests.
#include <gtest/gtest.h>

#include <filesystem>

#include "mad/attr/port_info.hpp"
#include "sm/mkey/sweep_keys.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/sm/component_rig.hpp"

namespace ibsm::sm::mkey {
namespace {

using testrig::ComponentRig;

constexpr std::uint64_t kKey = 0x1234;

struct KeyRig : ComponentRig {
  KeyRig() : ComponentRig(testrig::two_switches()) {
    options.cache_dir = dir.path() + "/cache";
    client.set_mkey_resolver([this](const mad::SmpTarget& t) { return keys.resolve(t, last); });
  }
  // The fake's key port of `id` (a CA's port 1, a switch's port 0).
  mad::PortInfo& fake_key_port(const std::string& id) {
    fake::FakeNode& n = fabric->node(fabric->index(id));
    return n.ports[n.is_switch() ? 0 : 1].info;
  }
  // Discovery as the heavy sweep runs it: keys learned from every PortInfo read.
  void discover_with_keys() {
    model = Fabric{};
    keys.set_building(&model);
    Discovery d(model, client, report, log);
    d.set_port_listener([this](const Node& n, PortNum p) { keys.learn(n, p); });
    d.start();
    drain();
    d.finish();
    keys.set_building(nullptr);
  }
  Guid port_node(const std::string& id) const {
    return fabric->node(fabric->index(id)).info.node_guid;
  }
  // The DR path that reaches `id`'s key port (a CA: through its switch).
  mad::DrPath path_to(const std::string& id) {
    const NodeIndex i = model.find(fabric->node(fabric->index(id)).info.node_guid);
    const Node& n = model.node(i);
    if (n.is_switch()) return n.path;
    const Port& p = n.ports[1];
    return *model.node(p.peer).path.extended(p.peer_port);
  }

  testsupport::TempDir dir;
  SweepKeys keys{log, log};
  Fabric last;  // the last sweep's fabric, as the SM keeps it
};

TEST(SweepKeys, DiscoveryLearnsKeysAndEachRequestCarriesItsPortsKey) {
  KeyRig rig;
  rig.options.m_key = kKey;
  rig.keys.apply_options(rig.options);
  // h2 holds another key and protects it at level 1: its Gets are answered with the
  // key hidden. h3 holds one it shows (level 0).
  rig.fake_key_port("h3").m_key = 0x77;
  rig.fake_key_port("h2").m_key = 0x88;
  rig.fake_key_port("h2").m_key_protect_bits = 1;
  rig.discover_with_keys();
  EXPECT_EQ(rig.model.size(), 5u);
  EXPECT_TRUE(rig.report.clean());
  // After the sweep: DR paths in its fabric.
  rig.last = rig.model;
  EXPECT_EQ(rig.keys.resolve(rig.path_to("h3"), rig.last), 0x77u);  // learned
  EXPECT_EQ(rig.keys.resolve(rig.path_to("h2"), rig.last), kKey);   // hidden: m_key
  EXPECT_EQ(rig.keys.resolve(rig.path_to("s2"), rig.last), 0u);     // shown: 0
  // A LID-routed request: the port holding the LID in the last sweep's fabric.
  rig.last.node(rig.last.find(rig.port_node("h3"))).ports[1].lid = 9;
  rig.keys.index_lids(rig.last);
  EXPECT_EQ(rig.keys.resolve(mad::SmpTarget{Lid{9}}, rig.last), 0x77u);
  // An accepted Set: requests carry the new key from then on.
  rig.keys.set_accepted(rig.port("h3").guid, 0x99);
  EXPECT_EQ(rig.keys.resolve(mad::SmpTarget{Lid{9}}, rig.last), 0x99u);
}

TEST(SweepKeys, WithoutKeysEveryRequestCarriesZero) {
  KeyRig rig;
  rig.keys.apply_options(rig.options);
  rig.discover_with_keys();
  EXPECT_TRUE(rig.report.clean());
  EXPECT_FALSE(rig.keys.keys().in_use());
  EXPECT_EQ(rig.keys.resolve(rig.path_to("h3"), rig.last), 0u);
}

TEST(SweepKeys, HintOnlyForLostRequestsWhileKeysAreInUse) {
  KeyRig rig;
  const mad::SmpRequest req = mad::SmpRequest::get<mad::PortInfo>(mad::DrPath{}, 1);
  mad::SmpFailure timeout;
  mad::SmpFailure status;
  status.kind = mad::SmpFailure::Kind::kStatus;
  rig.keys.hint({req, nullptr, &timeout}, rig.last);
  EXPECT_EQ(rig.log_text.str().find("mis-set"), std::string::npos);  // no keys in play
  rig.options.m_key = kKey;
  rig.keys.apply_options(rig.options);
  rig.keys.hint({req, nullptr, &status}, rig.last);
  EXPECT_EQ(rig.log_text.str().find("mis-set"), std::string::npos);  // answered: no hint
  rig.keys.hint({req, nullptr, &timeout}, rig.last);
  EXPECT_NE(rig.log_text.str().find("IBSM-2402"), std::string::npos) << rig.log_text.str();
  EXPECT_NE(rig.log_text.str().find("M_Key 0x0000000000001234; possible mis-set M_Key?"),
            std::string::npos)
      << rig.log_text.str();
}

TEST(SweepKeys, Guid2MkeyAndNeighborsAreWrittenWhenChangedAndReadBack) {
  KeyRig rig;
  rig.fake_key_port("h3").m_key = 0x77;
  rig.keys.apply_options(rig.options);
  rig.discover_with_keys();
  rig.keys.save(rig.model, rig.options.cache_dir, false);
  const std::string mkeys = rig.options.cache_dir + "/guid2mkey";
  const std::string neighbors = rig.options.cache_dir + "/neighbors";
  ASSERT_TRUE(std::filesystem::exists(mkeys));
  ASSERT_TRUE(std::filesystem::exists(neighbors));
  EXPECT_EQ(std::filesystem::status(mkeys).permissions() & std::filesystem::perms::others_read,
            std::filesystem::perms::none);
  // Nothing new: nothing rewritten.
  std::filesystem::remove(mkeys);
  rig.keys.save(rig.model, rig.options.cache_dir, false);
  EXPECT_FALSE(std::filesystem::exists(mkeys));
  rig.keys.set_accepted(rig.port("h2").guid, 0x5);
  rig.keys.save(rig.model, rig.options.cache_dir, false);
  ASSERT_TRUE(std::filesystem::exists(mkeys));
  // A new SM reads both.
  SweepKeys next{rig.log, rig.log};
  next.load(rig.options.cache_dir);
  EXPECT_EQ(next.keys().known().size(), rig.keys.keys().known().size());
  EXPECT_EQ(next.keys().known().at(rig.port("h3").guid), 0x77u);
  EXPECT_EQ(next.keys().known().at(rig.port("h2").guid), 0x5u);
  EXPECT_EQ(next.keys().neighbors().size(), rig.keys.keys().neighbors().size());
}

TEST(SweepKeys, AProtectedLeaseTurnsADisabledSweepBackOn) {
  KeyRig rig;
  rig.options.sweep_interval = 0;
  rig.options.m_key_protection_level = 1;
  rig.options.m_key_lease_period = 60;
  rig.keys.apply_options(rig.options);
  EXPECT_EQ(rig.options.sweep_interval, 0u);  // no key: nothing to protect
  rig.options.m_key = kKey;
  rig.keys.apply_options(rig.options);
  EXPECT_EQ(rig.options.sweep_interval, 59u);
  EXPECT_NE(rig.log_text.str().find("sweep interval 59 s"), std::string::npos);
  EXPECT_EQ(rig.keys.settings().protect_bits, 1);
  EXPECT_EQ(rig.keys.settings().lease_period, 60);
}

TEST(SweepKeys, OurOwnPortsKeyGuardsSmInfo) {
  KeyRig rig;
  rig.discover();
  rig.last = rig.model;
  const auto smi = [](mad::Method m, std::uint64_t key) {
    return mad::Smp::request(m, mad::AttrId::kSmInfo, 0, mad::SmpTarget{Lid{1}}, 1, key);
  };
  EXPECT_EQ(rig.keys.own_sminfo_access(smi(mad::Method::kSet, 0), rig.last),
            SmInfoAccess::kAnswer);  // our port holds no key
  mad::PortInfo& own = rig.last.node(rig.last.sm_node).ports[rig.last.sm_port].info;
  own.m_key = kKey;
  own.m_key_protect_bits = 2;
  EXPECT_EQ(rig.keys.own_sminfo_access(smi(mad::Method::kGet, kKey), rig.last),
            SmInfoAccess::kAnswer);
  EXPECT_EQ(rig.keys.own_sminfo_access(smi(mad::Method::kGet, 0), rig.last), SmInfoAccess::kDrop);
  EXPECT_EQ(rig.keys.own_sminfo_access(smi(mad::Method::kSet, 0), rig.last), SmInfoAccess::kDrop);
  EXPECT_EQ(rig.keys.own_sminfo_access(smi(mad::Method::kGet, 0), Fabric{}), SmInfoAccess::kAnswer);
}

}  // namespace
}  // namespace ibsm::sm::mkey
