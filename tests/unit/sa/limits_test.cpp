// The SA's bounds on what one port (and all ports together) can make it hold
// (sa/limits.hpp): ServiceRecords, InformInfo subscriptions, multicast
// memberships and created groups. Observed as clients see them: the status of
// the answer (ERR_NO_RESOURCES 0x0100 at a bound), and that other ports, updates,
// deletes, leases, unsubscribes and leaves behave as before. Time is the rig's
// FakeClock; the small fake fabric of sa_fixture.cpp.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sa/limits.hpp"
#include "sa/mcast/join_rules.hpp"
#include "sa/service_store.hpp"
#include "sa/state.hpp"
#include "tests/support/log_capture.hpp"
#include "tests/unit/sa/sa_fixture.hpp"

namespace ibsm::sa {
namespace {

using satest::SaRig;
using Bytes = std::vector<std::uint8_t>;

void put(std::span<std::uint8_t> b, std::size_t off, std::uint64_t v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    b[off + i] = static_cast<std::uint8_t>(v >> (8 * (n - 1 - i)));
}

Gid gid_of(Guid guid) {
  Gid g{};
  put(g, 0, 0xfe80000000000000ull, 8);
  put(g, 8, guid, 8);
  return g;
}

std::unique_ptr<SaRig> limited_rig(conf::Options o) {
  o.partition_config_file = "/nonexistent/ibsm-test/partitions.conf";  // the default partition
  return std::make_unique<SaRig>(satest::kSmallNet, o);
}

// ---- the rule and the log line ----

TEST(SaLimits, AdmitComparesThePortThenTheTotal) {
  EXPECT_EQ(admit(0, 1, 0, 1), Admit::kYes);
  EXPECT_EQ(admit(1, 1, 0, 10), Admit::kPortFull);
  EXPECT_EQ(admit(0, 1, 10, 10), Admit::kTotalFull);
  EXPECT_EQ(admit(5, 5, 10, 10), Admit::kPortFull);
}

TEST(SaLimits, RefusalsAreLoggedWithTheIdAndThePortOnPowersOfTwo) {
  std::ostringstream text;
  const Logger log = testsupport::capture_log(text, "sa", spdlog::level::info);
  std::uint64_t counter = 0;
  for (int i = 0; i < 9; ++i)
    note_refusal(log, counter, "ServiceRecords", Admit::kPortFull, 0x100001, 7, 1000);
  log->flush();
  EXPECT_EQ(counter, 9u);
  const std::string out = text.str();
  std::size_t lines = 0;
  for (std::size_t at = out.find("IBSM-7007"); at != std::string::npos;
       at = out.find("IBSM-7007", at + 1))
    ++lines;
  EXPECT_EQ(lines, 4u) << out;  // refusals 1, 2, 4, 8
  EXPECT_NE(out.find("port 0x0000000000100001 (LID 7) holds 1000 ServiceRecords"),
            std::string::npos)
      << out;
}

// ---- ServiceRecord ----

constexpr std::uint64_t kSid = 1ull << 0;
constexpr std::uint64_t kSgid = 1ull << 1;
constexpr std::uint64_t kSlease = 1ull << 4;
constexpr std::uint64_t kSname = 1ull << 6;
constexpr std::uint64_t kRegister = kSid | kSgid | kSlease | kSname;

struct Service {
  std::uint64_t id = 0x1000;
  Gid gid{};
  std::uint32_t lease = kInfiniteLease;
  std::string name = "svc";
};

Bytes encode(const Service& s) {
  Bytes r(kServiceRecordSize, 0);
  put(r, 0, s.id, 8);
  std::copy(s.gid.begin(), s.gid.end(), r.begin() + 8);
  put(r, 24, 0xFFFF, 2);
  put(r, 28, s.lease, 4);
  std::copy(s.name.begin(), s.name.end(), r.begin() + 48);
  return r;
}

class ServiceLimits : public ::testing::Test {
 protected:
  void SetUp() override {
    conf::Options o;
    o.sa_max_service_records_per_port = 3;
    o.sa_max_service_records = 5;
    rig = limited_rig(o);
  }
  // A ServiceRecord Set from `node` for a service of its own port; the status.
  std::uint16_t set(const char* node, std::uint64_t id, std::uint32_t lease = kInfiniteLease,
                    const char* name = "svc") {
    Service s{id, gid_of(rig->port_guid_of(node)), lease, name};
    auto a =
        rig->request(method::kSet, attr::kServiceRecord, encode(s), kRegister, rig->lid_of(node));
    return a ? a->header.status : 0xffff;
  }
  std::uint16_t del(const char* node, std::uint64_t id) {
    Service s{id, gid_of(rig->port_guid_of(node))};
    auto a = rig->request(method::kDelete, attr::kServiceRecord, encode(s), kSid | kSgid,
                          rig->lid_of(node));
    return a ? a->header.status : 0xffff;
  }
  std::size_t table_size(const char* node) {
    auto a = rig->request(method::kGetTable, attr::kServiceRecord, Bytes(kServiceRecordSize, 0), 0,
                          rig->lid_of(node));
    return a ? a->record_count() : 0;
  }
  ServiceStore& store() { return rig->sa().state().services; }
  std::unique_ptr<SaRig> rig;
};

TEST_F(ServiceLimits, BoundReachedIsNoResourcesAndOtherPortsAreServed) {
  for (std::uint64_t id = 1; id <= 3; ++id)
    ASSERT_EQ(set("ha", id), status::kOk) << id;
  Service s{4, gid_of(rig->port_guid_of("ha"))};
  auto a =
      rig->request(method::kSet, attr::kServiceRecord, encode(s), kRegister, rig->lid_of("ha"));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.method, method::kGetResp);
  EXPECT_EQ(a->header.status, status::kNoResources);
  ASSERT_EQ(a->record_count(), 1u) << "the refused record is echoed, as OpenSM's error answers";
  EXPECT_EQ(a->record(0)[7], 4);
  EXPECT_EQ(store().size(), 3u);
  EXPECT_EQ(rig->sa().state().refused.service_records, 1u);
  // Another port registers, and everyone's queries are answered.
  EXPECT_EQ(set("hb", 1), status::kOk);
  EXPECT_EQ(table_size("hc"), 4u);
  EXPECT_EQ(table_size("ha"), 4u);
}

TEST_F(ServiceLimits, AnUpdateOfTheSameRidIsNotCountedTwice) {
  for (std::uint64_t id = 1; id <= 3; ++id)
    ASSERT_EQ(set("ha", id), status::kOk);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(set("ha", 2, 60, "renamed"), status::kOk) << "update " << i;
  EXPECT_EQ(store().size(), 3u);
  EXPECT_EQ(store().held_by(rig->port_guid_of("ha")), 3u);
  EXPECT_EQ(set("ha", 4), status::kNoResources);
}

TEST_F(ServiceLimits, DeleteFreesASlot) {
  for (std::uint64_t id = 1; id <= 3; ++id)
    ASSERT_EQ(set("ha", id), status::kOk);
  ASSERT_EQ(set("ha", 4), status::kNoResources);
  EXPECT_EQ(del("ha", 2), status::kOk);
  EXPECT_EQ(set("ha", 4), status::kOk);
  EXPECT_EQ(set("ha", 5), status::kNoResources);
}

TEST_F(ServiceLimits, AnExpiredLeaseFreesASlot) {
  ASSERT_EQ(set("ha", 1, 10), status::kOk);
  ASSERT_EQ(set("ha", 2), status::kOk);
  ASSERT_EQ(set("ha", 3), status::kOk);
  rig->clock.advance(std::chrono::seconds(9));
  EXPECT_EQ(set("ha", 4), status::kNoResources) << "the lease runs 10 s";
  rig->clock.advance(std::chrono::seconds(1));
  EXPECT_EQ(set("ha", 4), status::kOk) << "the lease ran out: its slot is free";
}

TEST_F(ServiceLimits, TheTotalBoundsAllPortsTogether) {
  for (std::uint64_t id = 1; id <= 3; ++id)
    ASSERT_EQ(set("ha", id), status::kOk);
  ASSERT_EQ(set("hb", 1), status::kOk);
  ASSERT_EQ(set("hb", 2), status::kOk);
  EXPECT_EQ(set("hc", 1), status::kNoResources) << "5 held: the SA's total";
  EXPECT_EQ(set("hb", 2, 30), status::kOk) << "an update needs no new slot";
  ASSERT_EQ(del("ha", 1), status::kOk);
  EXPECT_EQ(set("hc", 1), status::kOk);
}

// ---- InformInfo ----

Bytes inform_info(std::uint16_t trap, bool subscribe = true) {
  Bytes b(kInformInfoSize, 0);
  put(b, 16, 0xFFFF, 2);  // all sources
  b[22] = 1;              // generic
  b[23] = subscribe ? 1 : 0;
  put(b, 24, 0xFFFF, 2);
  put(b, 26, trap, 2);
  put(b, 28, 1, 3);  // the QPN the rig's requests come from: an unsubscribe names it
  put(b, 33, 0xFFFFFF, 3);
  return b;
}

class InformLimits : public ::testing::Test {
 protected:
  void SetUp() override {
    conf::Options o;
    o.sa_max_inform_info_per_port = 2;
    o.sa_max_inform_info = 3;
    rig = limited_rig(o);
  }
  std::optional<SaRig::Answer> send(const char* node, std::uint16_t trap, bool subscribe = true) {
    return rig->request(method::kSet, attr::kInformInfo, inform_info(trap, subscribe), 0,
                        rig->lid_of(node));
  }
  std::uint16_t status_of(const char* node, std::uint16_t trap, bool subscribe = true) {
    auto a = send(node, trap, subscribe);
    return a ? a->header.status : 0xffff;
  }
  InformStore& store() { return rig->sa().state().informs; }
  std::unique_ptr<SaRig> rig;
};

TEST_F(InformLimits, PerPortBoundRenewalUnsubscribeAndTotal) {
  ASSERT_EQ(status_of("hb", 128), status::kOk);
  ASSERT_EQ(status_of("hb", 144), status::kOk);
  auto refused = send("hb", 145);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->header.status, status::kNoResources);
  ASSERT_EQ(refused->record_count(), 1u);
  EXPECT_EQ(refused->data[23], 0) << "o13-13.1.1: refused with Subscribe 0";
  EXPECT_EQ(store().held_by(rig->port_guid_of("hb")), 2u);
  EXPECT_EQ(rig->sa().state().refused.inform_infos, 1u);
  // Renewing an identical subscription is not a new one.
  EXPECT_EQ(status_of("hb", 128), status::kOk);
  EXPECT_EQ(store().subscriptions().size(), 2u);
  // Another port subscribes; then the SA's total (3) is reached.
  EXPECT_EQ(status_of("hc", 128), status::kOk);
  EXPECT_EQ(status_of("hd", 128), status::kNoResources);
  // An unsubscribe frees a slot.
  ASSERT_EQ(status_of("hb", 144, false), status::kOk);
  EXPECT_EQ(status_of("hd", 128), status::kOk);
  EXPECT_EQ(status_of("hb", 145), status::kNoResources) << "the total is reached again";
}

// ---- multicast ----

namespace bit = mcast::bit;
constexpr std::uint64_t kJoin = bit::kMgid | bit::kPortGid | bit::kPKey | bit::kJoinState;
constexpr std::uint64_t kCreate = kJoin | bit::kQKey | bit::kSl | bit::kFlowLabel | bit::kTClass;

Gid group(std::uint8_t n) {
  Gid g{0xff, 0x15, 0x40, 0x01, 0xff, 0xff};
  g[15] = n;
  return g;
}

Bytes mcmember(const Gid& mgid, const Gid& port, std::uint8_t join_state) {
  Bytes b(56, 0);
  std::copy(mgid.begin(), mgid.end(), b.begin());
  std::copy(port.begin(), port.end(), b.begin() + 16);
  put(b, 32, 0x80010000, 4);  // Q_Key as rdma_cm sets it
  put(b, 40, 0xFFFF, 2);
  b[48] = join_state;
  return b;
}

class McastLimits : public ::testing::Test {
 protected:
  void make(std::uint32_t per_port, std::uint32_t groups_per_port, std::uint32_t total) {
    conf::Options o;
    o.sa_max_mcast_memberships_per_port = per_port;
    o.sa_max_mcast_groups_per_port = groups_per_port;
    o.sa_max_mcast_memberships = total;
    rig = limited_rig(o);
  }
  // `from` joins `member`'s port (itself unless a proxy join) to group n.
  std::uint16_t join(const char* from, std::uint8_t n, const char* member = nullptr,
                     std::uint8_t state = 0x1) {
    const Gid port = gid_of(rig->port_guid_of(member != nullptr ? member : from));
    auto a = rig->request(method::kSet, attr::kMcMemberRecord, mcmember(group(n), port, state),
                          kCreate, rig->lid_of(from));
    return a ? a->header.status : 0xffff;
  }
  std::uint16_t leave(const char* from, std::uint8_t n, std::uint8_t state = 0x1) {
    const Gid port = gid_of(rig->port_guid_of(from));
    auto a = rig->request(method::kDelete, attr::kMcMemberRecord, mcmember(group(n), port, state),
                          kJoin, rig->lid_of(from));
    return a ? a->header.status : 0xffff;
  }
  McGroupStore& store() { return rig->sa().state().mcast; }
  std::unique_ptr<SaRig> rig;
};

TEST_F(McastLimits, MembershipsPerPortAreBoundedAndALeaveFreesOne) {
  make(2, 100, 1000);
  ASSERT_EQ(join("ha", 1), status::kOk);
  ASSERT_EQ(join("ha", 2), status::kOk);
  const std::size_t mlids = store().mlids_in_use();
  EXPECT_EQ(join("ha", 3), status::kNoResources);
  EXPECT_EQ(store().find(group(3)), nullptr) << "the refused create made no group";
  EXPECT_EQ(store().mlids_in_use(), mlids) << "and took no MLID";
  EXPECT_EQ(rig->sa().state().refused.mcast_memberships, 1u);
  // More JoinState bits on a membership it holds are not a new membership.
  EXPECT_EQ(join("ha", 1, nullptr, 0x2), status::kOk);
  // Others join as before, the full groups included.
  EXPECT_EQ(join("hb", 1), status::kOk);
  EXPECT_EQ(join("hb", 3), status::kOk);
  // A leave frees a slot.
  ASSERT_EQ(leave("ha", 2), status::kOk);
  EXPECT_EQ(join("ha", 3), status::kOk);
  EXPECT_EQ(join("ha", 4), status::kNoResources);
}

TEST_F(McastLimits, ProxyJoinsCountForThePortThatSentThem) {
  make(2, 100, 1000);
  ASSERT_EQ(join("hb", 1, "ha"), status::kOk);
  ASSERT_EQ(join("hb", 1, "hc"), status::kOk);
  EXPECT_EQ(join("hb", 1, "hd"), status::kNoResources);
  EXPECT_EQ(join("hb", 1), status::kNoResources) << "hb's own join too";
  EXPECT_EQ(join("ha", 2), status::kOk) << "ha's own count is untouched";
  EXPECT_EQ(join("ha", 3), status::kOk);
}

TEST_F(McastLimits, GroupsCreatedByAPortCountWhileTheyExist) {
  make(100, 2, 1000);
  ASSERT_EQ(join("ha", 1), status::kOk);
  ASSERT_EQ(join("ha", 2), status::kOk);
  // hb keeps both alive; ha leaves them: they are still ha's creations.
  ASSERT_EQ(join("hb", 1), status::kOk);
  ASSERT_EQ(join("hb", 2), status::kOk);
  ASSERT_EQ(leave("ha", 1), status::kOk);
  ASSERT_EQ(leave("ha", 2), status::kOk);
  ASSERT_NE(store().find(group(1)), nullptr);
  EXPECT_EQ(join("ha", 3), status::kNoResources);
  EXPECT_EQ(rig->sa().state().refused.mcast_groups, 1u);
  EXPECT_EQ(join("ha", 1), status::kOk) << "joining an existing group creates nothing";
  // The group ends with its last full member: ha may create another.
  ASSERT_EQ(leave("hb", 2), status::kOk);
  ASSERT_EQ(store().find(group(2)), nullptr);
  EXPECT_EQ(join("ha", 3), status::kOk);
}

TEST_F(McastLimits, TheTotalBoundsAllPortsAndLeavesFreeIt) {
  make(100, 100, 3);
  ASSERT_EQ(join("ha", 1), status::kOk);
  ASSERT_EQ(join("ha", 2), status::kOk);
  ASSERT_EQ(join("hb", 1), status::kOk);
  EXPECT_EQ(join("hc", 1), status::kNoResources);
  EXPECT_EQ(join("hc", 1), status::kNoResources) << "still full";
  ASSERT_EQ(leave("ha", 1), status::kOk);
  EXPECT_EQ(join("hc", 1), status::kOk);
  EXPECT_EQ(join("hd", 1), status::kNoResources);
}

TEST_F(McastLimits, APortThatLeftTheFabricFreesItsMemberships) {
  make(1000, 1000, 2);
  ASSERT_EQ(join("ha", 1), status::kOk);
  ASSERT_EQ(join("ha", 2), status::kOk);
  ASSERT_EQ(join("hb", 3), status::kNoResources);
  auto snap = std::make_shared<Snapshot>(*rig->sa().snapshot());
  snap->by_port_guid.erase(rig->port_guid_of("ha"));
  ++snap->generation;
  rig->sa().publish(snap);
  EXPECT_EQ(join("hb", 3), status::kOk);
}

}  // namespace
}  // namespace ibsm::sa
