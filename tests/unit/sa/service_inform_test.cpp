// ServiceRecord, InformInfo, InformInfoRecord, Report delivery and the SA
// database, observed as clients see them: the bytes the SA sends (answers and
// Reports, with their addresses), after an SM swept the small fake fabric.
// Time is the rig's FakeClock.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "mad/attr/notice.hpp"
#include "mad/smp.hpp"
#include "sa/record_layout.hpp"
#include "sa/sa_db.hpp"
#include "tests/unit/sa/sa_fixture.hpp"

namespace ibsm::sa {
namespace {

using satest::SaRig;
using Bytes = std::vector<std::uint8_t>;

// ServiceRecord component mask bits (OpenSM IB_SR_COMPMASK_*).
constexpr std::uint64_t kSid = 1ull << 0;
constexpr std::uint64_t kSgid = 1ull << 1;
constexpr std::uint64_t kSpkey = 1ull << 2;
constexpr std::uint64_t kSlease = 1ull << 4;
constexpr std::uint64_t kSkey = 1ull << 5;
constexpr std::uint64_t kSname = 1ull << 6;
constexpr std::uint64_t data8_bit(unsigned i) {
  return 1ull << (7 + i);
}
constexpr std::uint64_t kRegister = kSid | kSgid | kSpkey | kSlease | kSkey | kSname;

void put(std::span<std::uint8_t> b, std::size_t off, std::uint64_t v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    b[off + i] = static_cast<std::uint8_t>(v >> (8 * (n - 1 - i)));
}
std::uint64_t get(std::span<const std::uint8_t> b, std::size_t off, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i)
    v = (v << 8) | b[off + i];
  return v;
}

Gid gid_of(Guid guid) {
  Gid g{};
  put(g, 0, 0xfe80000000000000ull, 8);
  put(g, 8, guid, 8);
  return g;
}

struct Service {
  std::uint64_t id = 0x1000;
  Gid gid{};
  std::uint16_t pkey = 0xFFFF;
  std::uint32_t lease = kInfiniteLease;
  std::string name = "svc";
  std::uint8_t key0 = 0x5a;
  std::array<std::uint8_t, 16> data8{};
};

Bytes encode(const Service& s) {
  Bytes r(kServiceRecordSize, 0);
  put(r, 0, s.id, 8);
  std::copy(s.gid.begin(), s.gid.end(), r.begin() + 8);
  put(r, 24, s.pkey, 2);
  put(r, 28, s.lease, 4);
  r[32] = s.key0;
  std::copy(s.name.begin(), s.name.end(), r.begin() + 48);
  std::copy(s.data8.begin(), s.data8.end(), r.begin() + 112);
  return r;
}

std::string name_of(std::span<const std::uint8_t> rec) {
  std::string n;
  for (std::size_t i = 48; i < 112 && rec[i] != 0; ++i)
    n += static_cast<char>(rec[i]);
  return n;
}

std::unique_ptr<SaRig> rig_with(const char* partitions = nullptr, conf::Options o = {}) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("ibsm-svc-" + std::to_string(::getpid()) + "-partitions.conf");
  if (partitions != nullptr) {
    std::ofstream(path) << partitions;
    o.partition_config_file = path.string();
  } else {
    o.partition_config_file = "/nonexistent/ibsm-test/partitions.conf";
  }
  auto rig = std::make_unique<SaRig>(satest::kSmallNet, o);
  std::filesystem::remove(path);
  return rig;
}

// Every CA is a limited member of Default (ha, the SM's port, and the switches
// full); hb is full in B and Storage, hc and hd in Other: hb shares a partition
// with ha only.
constexpr const char* kSplit =
    "Default=0x7fff, ipoib : ALL_SWITCHES=full, 0x100001=full;\n"
    "B=0x0030 : 0x100003=full;\n"
    "Other=0x0020 : 0x100005=full, 0x100007=full;\n"
    "Storage=0x0010 : 0x100003=full;\n";

std::optional<SaRig::Answer> sr(SaRig& rig, std::uint8_t m, const Service& s, std::uint64_t mask,
                                const char* from, std::uint64_t sm_key = 0) {
  const Bytes rec = encode(s);
  return rig.request(m, attr::kServiceRecord, rec, mask, rig.lid_of(from), sm_key);
}

std::optional<SaRig::Answer> table(SaRig& rig, const char* from, std::uint64_t sm_key = 0,
                                   const Service& q = {}, std::uint64_t mask = 0) {
  return sr(rig, method::kGetTable, q, mask, from, sm_key);
}

// ---- layouts ----

TEST(ServiceLayouts, OpenSmComponentMaskNumbering) {
  const RecordLayout* s = find_layout(attr::kServiceRecord);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->size, 176);
  EXPECT_EQ(s->words(), 22);
  ASSERT_EQ(s->fields.size(), 37u);  // IB_SR_COMPMASK_SDATA64_1 is bit 36
  EXPECT_EQ(s->fields[4].name, "ServiceLease");
  EXPECT_EQ(s->fields[6].bit_offset, 48 * 8);    // ServiceName
  EXPECT_EQ(s->fields[7].bit_offset, 112 * 8);   // ServiceData8.0
  EXPECT_EQ(s->fields[22].bit_offset, 127 * 8);  // ServiceData8.15
  EXPECT_EQ(s->fields[23].bit_offset, 128 * 8);  // ServiceData16.0
  EXPECT_EQ(s->fields[31].bit_offset, 144 * 8);  // ServiceData32.0
  EXPECT_EQ(s->fields[35].bit_offset, 160 * 8);  // ServiceData64.0
  const RecordLayout* ii = find_layout(attr::kInformInfo);
  ASSERT_NE(ii, nullptr);
  EXPECT_EQ(ii->size, 36);
  EXPECT_EQ(ii->words(), 5);
  const RecordLayout* iir = find_layout(attr::kInformInfoRecord);
  ASSERT_NE(iir, nullptr);
  EXPECT_EQ(iir->size, 60);
  EXPECT_EQ(iir->words(), 8);
  ASSERT_EQ(iir->fields.size(), 16u);  // IB_IIR_COMPMASK_VENDID is bit 15
  EXPECT_EQ(iir->fields[1].name, "Enum");
  EXPECT_EQ(iir->fields[3].bit_offset, 24 * 8);  // InformInfo.GID
  EXPECT_EQ(iir->fields[11].name, "QPN");
  EXPECT_EQ(iir->fields[11].bit_offset, (24 + 28) * 8);
}

// ---- ServiceRecord ----

TEST(ServiceRecord, SetRegistersAndAnswersTheRecordWithoutTheKey) {
  auto rig = rig_with();
  Service s;
  s.gid = gid_of(rig->port_guid_of("ha"));
  s.lease = 60;
  auto a = sr(*rig, method::kSet, s, kRegister, "ha");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.method, method::kGetResp);
  EXPECT_EQ(a->header.status, status::kOk);
  ASSERT_EQ(a->record_count(), 1u);
  Bytes expect = encode(s);
  expect[32] = 0;  // ServiceKey reads 0 for an untrusted requester
  EXPECT_EQ(Bytes(a->record(0).begin(), a->record(0).end()), expect);

  auto t = table(*rig, "hb");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->header.method, method::kGetTableResp);
  ASSERT_EQ(t->record_count(), 1u);
  EXPECT_EQ(Bytes(t->record(0).begin(), t->record(0).end()), expect);
  auto trusted = table(*rig, "hb", /*sm_key=*/1);
  ASSERT_TRUE(trusted);
  ASSERT_EQ(trusted->record_count(), 1u);
  EXPECT_EQ(trusted->record(0)[32], 0x5a);
}

TEST(ServiceRecord, SetWithoutServiceIdOrGidIsRefusedWith0200) {
  auto rig = rig_with();
  Service s;
  s.gid = gid_of(rig->port_guid_of("ha"));
  for (std::uint64_t mask : {kRegister & ~kSid, kRegister & ~kSgid}) {
    auto a = sr(*rig, method::kSet, s, mask, "ha");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->header.method, method::kGetResp);
    EXPECT_EQ(a->header.status, status::kReqInvalid);
  }
  EXPECT_EQ(table(*rig, "ha")->record_count(), 0u);
}

TEST(ServiceRecord, WithoutLeaseInTheMaskTheLeaseIsInfinite) {
  auto rig = rig_with();
  Service s;
  s.gid = gid_of(rig->port_guid_of("ha"));
  s.lease = 5;
  auto a = sr(*rig, method::kSet, s, kRegister & ~kSlease, "ha");
  ASSERT_TRUE(a);
  ASSERT_EQ(a->record_count(), 1u);
  EXPECT_EQ(get(a->record(0), 28, 4), 0xFFFFFFFFu);
  rig->clock.advance(std::chrono::hours(24));
  rig->sa().tick();
  EXPECT_EQ(table(*rig, "ha")->record_count(), 1u);
}

TEST(ServiceRecord, WithoutPKeyInTheMaskTheAnswerShowsTheDefaultPKey) {
  auto rig = rig_with();
  Service s;
  s.gid = gid_of(rig->port_guid_of("ha"));
  s.pkey = 0;  // what osmtest sends for "no P_Key"
  auto a = sr(*rig, method::kSet, s, kRegister & ~kSpkey, "ha");
  ASSERT_TRUE(a);
  ASSERT_EQ(a->record_count(), 1u);
  EXPECT_EQ(get(a->record(0), 24, 2), 0xFFFFu);
  // The record is kept as sent (its RID has P_Key 0), as OpenSM keeps it.
  auto t = table(*rig, "hb");
  ASSERT_EQ(t->record_count(), 1u);
  EXPECT_EQ(get(t->record(0), 24, 2), 0u);
}

TEST(ServiceRecord, SetOnAnExistingRidUpdatesIt) {
  auto rig = rig_with();
  Service s;
  s.gid = gid_of(rig->port_guid_of("ha"));
  ASSERT_EQ(sr(*rig, method::kSet, s, kRegister, "ha")->header.status, 0);
  s.name = "renamed";
  ASSERT_EQ(sr(*rig, method::kSet, s, kRegister, "ha")->header.status, 0);
  auto t = table(*rig, "ha");
  ASSERT_EQ(t->record_count(), 1u);
  EXPECT_EQ(name_of(t->record(0)), "renamed");
  s.pkey = 0x7fff;  // another P_Key: another RID
  ASSERT_EQ(sr(*rig, method::kSet, s, kRegister, "ha")->header.status, 0);
  EXPECT_EQ(table(*rig, "ha")->record_count(), 2u);
}

TEST(ServiceRecord, LeaseExpiresOnTheClockAndAnUpdateRestartsIt) {
  auto rig = rig_with();
  Service s;
  s.gid = gid_of(rig->port_guid_of("ha"));
  s.lease = 10;
  ASSERT_EQ(sr(*rig, method::kSet, s, kRegister, "ha")->header.status, 0);
  rig->clock.advance(std::chrono::seconds(6));
  rig->sa().tick();
  ASSERT_EQ(sr(*rig, method::kSet, s, kRegister, "ha")->header.status, 0);  // renewal
  rig->clock.advance(std::chrono::seconds(9));
  rig->sa().tick();
  EXPECT_EQ(table(*rig, "ha")->record_count(), 1u) << "15 s after the first Set, 9 s after renewal";
  rig->clock.advance(std::chrono::seconds(1));
  EXPECT_EQ(table(*rig, "ha")->record_count(), 0u) << "gone at its end, even before a tick";
  rig->sa().tick();
  EXPECT_EQ(rig->sa().state().services.size(), 0u);
  Service q;
  q.id = s.id;
  auto g = sr(*rig, method::kGet, q, kSid, "ha");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->header.status, status::kNoRecords);
}

TEST(ServiceRecord, DeleteReturnsTheRecordAndAnUnknownRidIs0300) {
  auto rig = rig_with();
  Service s;
  s.gid = gid_of(rig->port_guid_of("hb"));
  ASSERT_EQ(sr(*rig, method::kSet, s, kRegister, "hb")->header.status, 0);
  auto d = sr(*rig, method::kDelete, s, kSname, "hb");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->header.method, method::kDeleteResp);
  EXPECT_EQ(d->header.status, status::kOk);
  ASSERT_EQ(d->record_count(), 1u);
  EXPECT_EQ(name_of(d->record(0)), "svc");
  EXPECT_EQ(d->record(0)[32], 0) << "ServiceKey zeroed for an untrusted requester";
  EXPECT_EQ(table(*rig, "hb")->record_count(), 0u);
  auto again = sr(*rig, method::kDelete, s, kSname, "hb");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->header.method, method::kDeleteResp);
  EXPECT_EQ(again->header.status, status::kNoRecords);
}

TEST(ServiceRecord, GetMatchesEveryMaskedFieldExceptTheLease) {
  auto rig = rig_with();
  const Gid gid = gid_of(rig->port_guid_of("ha"));
  for (std::uint8_t i = 0; i < 3; ++i) {
    Service s;
    s.id = 0x2000 + i;
    s.gid = gid;
    s.name = "inst" + std::to_string(i);
    s.data8[1] = static_cast<std::uint8_t>(i + 1);
    ASSERT_EQ(sr(*rig, method::kSet, s, kRegister | data8_bit(1), "ha")->header.status, 0);
  }
  Service q;
  q.data8[1] = 2;
  auto by_data = sr(*rig, method::kGet, q, data8_bit(1), "hb");
  ASSERT_TRUE(by_data);
  EXPECT_EQ(by_data->header.status, status::kOk);
  ASSERT_EQ(by_data->record_count(), 1u);
  EXPECT_EQ(name_of(by_data->record(0)), "inst1");

  q = {};
  q.name = "inst2";
  q.lease = 1234;  // not what was registered: OpenSM does not compare the lease
  auto by_name = sr(*rig, method::kGet, q, kSname | kSlease, "hb");
  ASSERT_EQ(by_name->header.status, status::kOk);
  EXPECT_EQ(get(by_name->record(0), 0, 8), 0x2002u);

  q = {};
  q.id = 0x2000;
  q.name = "inst2";
  EXPECT_EQ(sr(*rig, method::kGet, q, kSid | kSname, "hb")->header.status, status::kNoRecords);
  q = {};
  q.gid = gid;
  EXPECT_EQ(sr(*rig, method::kGet, q, kSgid, "hb")->header.status, status::kTooManyRecords);
  EXPECT_EQ(sr(*rig, method::kGetTable, q, kSgid, "hb")->record_count(), 3u);
  EXPECT_EQ(table(*rig, "hb")->record_count(), 3u);
}

TEST(ServiceRecord, PKeyRulesOnSetAndHiddenRecordsOnGet) {
  auto rig = rig_with(kSplit);
  Service s;
  s.gid = gid_of(rig->port_guid_of("hb"));
  s.pkey = 0x8010;  // Storage: hb only
  ASSERT_EQ(sr(*rig, method::kSet, s, kRegister, "hb")->header.status, status::kOk);
  // A requester without the P_Key, and a ServiceGID whose port lacks it: refused.
  auto a = sr(*rig, method::kSet, s, kRegister, "hc");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kReqInvalid);
  Service other = s;
  other.id = 0x77;
  other.gid = gid_of(rig->port_guid_of("hc"));
  EXPECT_EQ(sr(*rig, method::kSet, other, kRegister, "hb")->header.status, status::kReqInvalid);
  EXPECT_EQ(sr(*rig, method::kDelete, s, kRegister, "hc")->header.status, status::kReqInvalid);
  // Only holders of the P_Key see the record (the SM's port included).
  EXPECT_EQ(table(*rig, "hb")->record_count(), 1u);
  EXPECT_EQ(table(*rig, "hc")->record_count(), 0u);
  EXPECT_EQ(table(*rig, "ha")->record_count(), 0u);
}

TEST(ServiceRecord, RequesterWithUnknownLidGetsNoAnswer) {
  auto rig = rig_with();
  Service s;
  s.gid = gid_of(rig->port_guid_of("ha"));
  const Bytes rec = encode(s);
  EXPECT_FALSE(rig->request(method::kSet, attr::kServiceRecord, rec, kRegister, 0x0bad));
  EXPECT_EQ(table(*rig, "ha")->record_count(), 0u);
}

// ---- InformInfo / InformInfoRecord ----

struct Inform {
  bool subscribe = true;
  Gid gid{};
  std::uint16_t lid_begin = 0xFFFF;
  std::uint16_t lid_end = 0;
  bool generic = true;
  std::uint16_t type = 0xFFFF;
  std::uint16_t trap = 0xFFFF;
  std::uint32_t qpn = 0;
  std::uint32_t producer = 0xFFFFFF;
};

Bytes encode(const Inform& i) {
  Bytes b(kInformInfoSize, 0);
  std::copy(i.gid.begin(), i.gid.end(), b.begin());
  put(b, 16, i.lid_begin, 2);
  put(b, 18, i.lid_end, 2);
  b[22] = i.generic ? 1 : 0;
  b[23] = i.subscribe ? 1 : 0;
  put(b, 24, i.type, 2);
  put(b, 26, i.trap, 2);
  put(b, 28, i.qpn, 3);
  put(b, 33, i.producer, 3);
  return b;
}

// Hands a request to the SA as coming from `from` (any QPN); the answer, if any.
std::optional<SaRig::Answer> from_address(SaRig& rig, std::uint8_t m, std::uint16_t attr_id,
                                          const Bytes& rec, std::uint64_t mask,
                                          const mad::MadAddress& from, std::uint64_t sm_key = 0) {
  static std::uint64_t tid = 0x9000;
  SaHeader h;
  h.method = m;
  h.tid = tid++;
  h.attr_id = attr_id;
  h.sm_key = sm_key;
  h.comp_mask = mask;
  Bytes bytes(kMadSize, 0);
  encode_header(h, bytes);
  std::copy(rec.begin(), rec.end(), bytes.begin() + kHeaderSize);
  mad::IncomingMad in;
  in.length = bytes.size();
  std::copy(bytes.begin(), bytes.end(), in.bytes.begin());
  in.slid = from.lid;
  in.sqpn = from.qpn;
  in.from = from;
  const std::size_t before = rig.fabric->sent.size();
  rig.sa().handle(in);
  if (rig.fabric->sent.size() == before) return std::nullopt;
  SaRig::Answer a;
  a.bytes = rig.fabric->sent.back().bytes;
  a.header = decode_header(a.bytes);
  a.data.assign(a.bytes.begin() + kHeaderSize, a.bytes.end());
  if (a.header.attr_offset == 0) a.data.clear();
  return a;
}

mad::MadAddress addr(SaRig& rig, const char* node, std::uint32_t qpn) {
  mad::MadAddress a;
  a.lid = rig.lid_of(node);
  a.qpn = qpn;
  a.qkey = 0;  // what a received address carries (the kernel reports no Q_Key)
  return a;
}

std::optional<SaRig::Answer> inform(SaRig& rig, const Inform& i, const char* node,
                                    std::uint32_t qpn = 0x40, std::uint64_t sm_key = 0) {
  return from_address(rig, method::kSet, attr::kInformInfo, encode(i), 0, addr(rig, node, qpn),
                      sm_key);
}

std::optional<SaRig::Answer> records(SaRig& rig, const char* from, std::uint64_t sm_key = 0,
                                     std::optional<Gid> subscriber = std::nullopt) {
  Bytes q(64, 0);
  std::uint64_t mask = 0;
  if (subscriber) {
    std::copy(subscriber->begin(), subscriber->end(), q.begin());
    mask = 1;
  }
  return rig.request(method::kGetTable, attr::kInformInfoRecord, q, mask, rig.lid_of(from), sm_key);
}

TEST(InformInfo, SubscribeEchoesTheRequestAndIsListedAsARecord) {
  auto rig = rig_with();
  Inform i;
  i.trap = 128;
  auto a = inform(*rig, i, "hb", 0x40);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.method, method::kGetResp);
  EXPECT_EQ(a->header.attr_id, attr::kInformInfo);
  EXPECT_EQ(a->header.status, status::kOk);
  ASSERT_EQ(a->record_count(), 1u);
  EXPECT_EQ(Bytes(a->data.begin(), a->data.begin() + 36), encode(i));

  auto t = records(*rig, "ha");
  ASSERT_TRUE(t);
  ASSERT_EQ(t->record_count(), 1u);
  const auto rec = t->record(0);
  EXPECT_EQ(get(rec, 8, 8), rig->port_guid_of("hb"));  // SubscriberGID: the sender's port
  EXPECT_EQ(get(rec, 24 + 26, 2), 128u);               // TrapNumber
  EXPECT_EQ(get(rec, 24 + 28, 3), 0u) << "QPN hidden from an untrusted requester";
  auto trusted = records(*rig, "ha", /*sm_key=*/1);
  ASSERT_EQ(trusted->record_count(), 1u);
  EXPECT_EQ(get(trusted->record(0), 24 + 28, 3), 0x40u) << "the QP the Set came from";
  // Selected by SubscriberGID.
  EXPECT_EQ(records(*rig, "ha", 0, gid_of(rig->port_guid_of("hb")))->record_count(), 1u);
  EXPECT_EQ(records(*rig, "ha", 0, gid_of(rig->port_guid_of("hc")))->record_count(), 0u);
}

TEST(InformInfo, DuplicateSubscriptionIsOneAndUnsubscribeNamesTheQpn) {
  auto rig = rig_with();
  Inform i;
  ASSERT_EQ(inform(*rig, i, "hb", 0x40)->header.status, 0);
  ASSERT_EQ(inform(*rig, i, "hb", 0x40)->header.status, 0);  // identical: replaces
  EXPECT_EQ(records(*rig, "ha")->record_count(), 1u);
  ASSERT_EQ(inform(*rig, i, "hb", 0x41)->header.status, 0);  // another QP: another one
  EXPECT_EQ(records(*rig, "ha")->record_count(), 2u);

  Inform un = i;
  un.subscribe = false;
  un.qpn = 0x99;  // names no subscription
  auto bad = inform(*rig, un, "hb", 0x40);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->header.status, status::kReqInvalid);
  ASSERT_EQ(bad->record_count(), 1u);
  EXPECT_EQ(bad->data[23], 0) << "o13-13.1.1: a refused request is echoed with Subscribe 0";
  un.qpn = 0x40;
  ASSERT_EQ(inform(*rig, un, "hb", 0x40)->header.status, 0);
  EXPECT_EQ(records(*rig, "ha")->record_count(), 1u);
}

TEST(InformInfo, BadSubscribeValueSecurityTrapsAndGet) {
  auto rig = rig_with();
  Inform i;
  Bytes two = encode(i);
  two[23] = 2;
  auto a = from_address(*rig, method::kSet, attr::kInformInfo, two, 0, addr(*rig, "hb", 1));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kReqInvalid);

  i.trap = 257;  // bad P_Key trap: trusted requesters only
  EXPECT_EQ(inform(*rig, i, "hb")->header.status, status::kReqInvalid);
  EXPECT_EQ(inform(*rig, i, "hb", 0x40, /*sm_key=*/1)->header.status, status::kOk);

  auto get_ii =
      from_address(*rig, method::kGet, attr::kInformInfo, encode(i), 0, addr(*rig, "hb", 1));
  ASSERT_TRUE(get_ii);
  EXPECT_EQ(get_ii->header.status, status::kMethodAttrUnsupported);
}

TEST(InformInfo, SourcesTheSubscriberCannotReachAreRefused) {
  auto rig = rig_with(kSplit);
  Inform by_gid;
  by_gid.gid = gid_of(rig->port_guid_of("hc"));  // hb and hc share no partition
  EXPECT_EQ(inform(*rig, by_gid, "hb")->header.status, status::kReqInvalid);
  by_gid.gid = gid_of(rig->port_guid_of("ha"));
  EXPECT_EQ(inform(*rig, by_gid, "hb")->header.status, status::kOk);
  by_gid.gid = gid_of(0xdead);  // no such port
  EXPECT_EQ(inform(*rig, by_gid, "hb")->header.status, status::kReqInvalid);

  Inform range;
  range.lid_begin = rig->lid_of("hc");
  EXPECT_EQ(inform(*rig, range, "hb")->header.status, status::kReqInvalid);
  range.lid_begin = 0xBFFF;  // beyond every LID in use
  EXPECT_EQ(inform(*rig, range, "hb")->header.status, status::kReqInvalid);
  range.lid_begin = 0xFFFF;  // all sources: not checked
  // (From another QP: OpenSM's identity test ignores the GID of a stored
  // subscription when the new one has none, so this would replace the first.)
  EXPECT_EQ(inform(*rig, range, "hb", 0x41)->header.status, status::kOk);
  // InformInfoRecords of ports the requester shares no partition with are not listed.
  EXPECT_EQ(records(*rig, "hc")->record_count(), 0u);
  EXPECT_EQ(records(*rig, "ha")->record_count(), 2u);
}

// ---- notice matching (pure rules) ----

NoticeBytes notice(std::uint16_t trap_number, Lid issuer, std::uint8_t type = 1,
                   std::uint32_t producer = 2) {
  NoticeBytes n{};
  n[0] = static_cast<std::uint8_t>(0x80 | type);
  put(n, 1, producer, 3);
  put(n, 4, trap_number, 2);
  put(n, 6, issuer, 2);
  return n;
}

std::array<std::uint8_t, kInformInfoSize> info_of(const Inform& i) {
  std::array<std::uint8_t, kInformInfoSize> a{};
  const Bytes b = encode(i);
  std::copy(b.begin(), b.end(), a.begin());
  return a;
}

TEST(NoticeMatching, WildcardsRangesAndGenericFlag) {
  const NoticeBytes n = notice(128, 7);
  const NoticeView v{n};
  EXPECT_TRUE(notice_matches(info_of({}), v));
  Inform i;
  i.trap = 129;
  EXPECT_FALSE(notice_matches(info_of(i), v));
  i = {};
  i.type = 2;
  EXPECT_FALSE(notice_matches(info_of(i), v));
  i = {};
  i.producer = 4;
  EXPECT_FALSE(notice_matches(info_of(i), v));
  i.producer = 2;
  EXPECT_TRUE(notice_matches(info_of(i), v));
  i = {};
  i.generic = false;
  EXPECT_FALSE(notice_matches(info_of(i), v));
  i = {};
  i.lid_begin = 5;
  i.lid_end = 9;
  EXPECT_TRUE(notice_matches(info_of(i), v));
  i.lid_end = 6;
  EXPECT_FALSE(notice_matches(info_of(i), v));
  i.lid_begin = 7;
  i.lid_end = 0;  // a single LID
  EXPECT_TRUE(notice_matches(info_of(i), v));
  // A GID names the issuer, whatever the LID range says.
  NoticeBytes with_gid = n;
  const Gid g = gid_of(0x1234);
  std::copy(g.begin(), g.end(), with_gid.begin() + 64);
  i = {};
  i.gid = g;
  i.lid_begin = 1;
  EXPECT_TRUE(notice_matches(info_of(i), NoticeView{with_gid}));
  i.gid = gid_of(0x1235);
  EXPECT_FALSE(notice_matches(info_of(i), NoticeView{with_gid}));
}

// ---- Reports ----

struct Report {
  SaHeader header;
  NoticeBytes notice{};
  mad::MadAddress to;
};

std::vector<Report> reports(const SaRig& rig, std::size_t from = 0) {
  std::vector<Report> out;
  for (std::size_t i = from; i < rig.fabric->sent.size(); ++i) {
    const auto& s = rig.fabric->sent[i];
    if (s.bytes.size() < kHeaderSize + kNoticeSize) continue;
    Report r;
    r.header = decode_header(s.bytes);
    if (r.header.method != method::kReport) continue;
    std::copy_n(s.bytes.begin() + kHeaderSize, kNoticeSize, r.notice.begin());
    r.to = s.to;
    out.push_back(r);
  }
  return out;
}

// Reports without their retransmissions (a retry repeats the TID).
std::vector<Report> first_sends(const std::vector<Report>& all) {
  std::vector<Report> out;
  for (const Report& r : all) {
    const bool seen = std::any_of(out.begin(), out.end(),
                                  [&](const Report& o) { return o.header.tid == r.header.tid; });
    if (!seen) out.push_back(r);
  }
  return out;
}

mad::Notice trap_notice(std::uint16_t number, Lid issuer) {
  mad::Notice n;
  n.is_generic = true;
  n.type = 1;
  n.producer_type = 2;
  n.trap_number = number;
  n.issuer_lid = issuer;
  n.details[0] = static_cast<std::uint8_t>(issuer >> 8);
  n.details[1] = static_cast<std::uint8_t>(issuer);
  return n;
}

TEST(Reports, ForwardedTrapIsAReportToTheSubscribersAddress) {
  auto rig = rig_with();
  ASSERT_EQ(inform(*rig, {}, "hb", 0x40)->header.status, 0);
  const Lid s1 = rig->lid_of("s1");
  const std::size_t before = rig->fabric->sent.size();
  rig->sa().forward_trap(trap_notice(128, s1), s1);
  const auto r = reports(*rig, before);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(rig->fabric->sent[before].bytes.size(), 256u);
  EXPECT_EQ(r[0].header.base_version, 1);
  EXPECT_EQ(r[0].header.mgmt_class, kClassSubnAdm);
  EXPECT_EQ(r[0].header.class_version, 2);
  EXPECT_EQ(r[0].header.method, method::kReport);
  EXPECT_EQ(r[0].header.attr_id, attr::kNotice);
  EXPECT_EQ(r[0].header.tid, 0x02DAB001u);  // OpenSM's counter, first value
  EXPECT_EQ(r[0].header.status, 0);
  EXPECT_EQ(r[0].to.lid, rig->lid_of("hb"));
  EXPECT_EQ(r[0].to.qpn, 0x40u);
  EXPECT_EQ(r[0].to.qkey, 0x80010000u);
  const NoticeView v{r[0].notice};
  EXPECT_TRUE(v.is_generic());
  EXPECT_EQ(v.type(), 1);
  EXPECT_EQ(v.producer(), 2u);
  EXPECT_EQ(v.trap_number(), 128);
  EXPECT_EQ(v.issuer_lid(), s1);
  EXPECT_EQ(get(r[0].notice, 10, 2), s1) << "DataDetails carried over";
  EXPECT_EQ(v.issuer_gid(), gid_of(rig->port_guid_of("s1"))) << "IssuerGID from the source LID";

  // The next Report has the next TID.
  rig->sa().forward_trap(trap_notice(144, s1), s1);
  const auto r2 = reports(*rig, before + 1);
  ASSERT_EQ(r2.size(), 1u);
  EXPECT_EQ(r2[0].header.tid, 0x02DAB002u);
}

TEST(Reports, PortErrorTraps129To131AreNotForwarded) {
  auto rig = rig_with();
  ASSERT_EQ(inform(*rig, {}, "hb")->header.status, 0);
  const Lid s1 = rig->lid_of("s1");
  const std::size_t before = rig->fabric->sent.size();
  for (std::uint16_t t : {129, 130, 131})
    rig->sa().forward_trap(trap_notice(t, s1), s1);
  EXPECT_TRUE(reports(*rig, before).empty());
  rig->sa().forward_trap(trap_notice(256, s1), s1);
  EXPECT_EQ(reports(*rig, before).size(), 1u);
}

TEST(Reports, RetriedOnTheTransactionTimeoutThenGivenUp) {
  conf::Options o;
  o.transaction_timeout = 100;
  o.transaction_retries = 2;
  auto rig = rig_with(nullptr, o);
  ASSERT_EQ(inform(*rig, {}, "hb")->header.status, 0);
  const std::size_t before = rig->fabric->sent.size();
  const Lid s1 = rig->lid_of("s1");
  rig->sa().forward_trap(trap_notice(128, s1), s1);
  ASSERT_EQ(reports(*rig, before).size(), 1u);
  rig->clock.advance(std::chrono::milliseconds(99));
  rig->sa().tick();
  EXPECT_EQ(reports(*rig, before).size(), 1u) << "not yet due";
  for (int i = 0; i < 5; ++i) {
    rig->clock.advance(std::chrono::milliseconds(100));
    rig->sa().tick();
  }
  const auto r = reports(*rig, before);
  ASSERT_EQ(r.size(), 3u) << "one send and transaction_retries retries";
  EXPECT_EQ(rig->fabric->sent[before + 1].bytes, rig->fabric->sent[before].bytes)
      << "a retry is the same transaction";
  EXPECT_EQ(rig->sa().state().informs.in_flight(), 0u);
  EXPECT_EQ(rig->sa().state().informs.counters().given_up, 1u);
}

TEST(Reports, ReportRespRetiresTheReportByTheLow32TidBits) {
  auto rig = rig_with();
  ASSERT_EQ(inform(*rig, {}, "hb")->header.status, 0);
  const std::size_t before = rig->fabric->sent.size();
  const Lid s1 = rig->lid_of("s1");
  rig->sa().forward_trap(trap_notice(128, s1), s1);
  ASSERT_EQ(reports(*rig, before).size(), 1u);
  // The subscriber answers ReportResp; the kernel rewrote the TID's upper half.
  Bytes resp = rig->fabric->sent[before].bytes;
  SaHeader h = decode_header(resp);
  h.method = method::kReportResp;
  h.tid = 0x0000002a00000000ull | (h.tid & 0xffffffffu);
  encode_header(h, resp);
  mad::IncomingMad in;
  in.length = resp.size();
  std::copy(resp.begin(), resp.end(), in.bytes.begin());
  in.from = addr(*rig, "hb", 0x40);
  in.slid = in.from.lid;
  rig->sa().handle(in);
  EXPECT_EQ(rig->sa().state().informs.in_flight(), 0u);
  EXPECT_EQ(rig->sa().state().informs.counters().acknowledged, 1u);
  rig->clock.advance(std::chrono::seconds(5));
  rig->sa().tick();
  EXPECT_EQ(reports(*rig, before).size(), 1u) << "no retry after the ReportResp";
}

TEST(Reports, TrapReceivedByTheSmIsForwarded) {
  auto rig = rig_with();
  ASSERT_EQ(inform(*rig, {}, "hb")->header.status, 0);
  const std::size_t before = rig->fabric->sent.size();
  const Lid s2 = rig->lid_of("s2");
  mad::Smp smp = mad::Smp::request(mad::Method::kTrap, mad::AttrId::kNotice, 0, mad::Lid{1}, 0x77);
  smp.set_attribute(trap_notice(144, s2));
  rig->fabric->inject(smp, s2);
  std::atomic<bool> stop{false};
  rig->sm->sweep(stop);  // the SM reads its queue (trap 144 also makes the sweep heavy)
  const auto r = reports(*rig, before);
  ASSERT_GE(r.size(), 1u);
  EXPECT_EQ(NoticeView{r[0].notice}.trap_number(), 144);
  EXPECT_EQ(NoticeView{r[0].notice}.issuer_gid(), gid_of(rig->port_guid_of("s2")));
  EXPECT_EQ(r[0].to.lid, rig->lid_of("hb"));
}

// A port leaves and comes back between sweeps: trap 65, then trap 64, both
// issued by the SM about the port's GID.
TEST(Reports, GidOutOfServiceAndInServiceBetweenSweeps) {
  auto rig = rig_with();
  Inform i;
  i.trap = 0xFFFF;
  ASSERT_EQ(inform(*rig, i, "hb")->header.status, 0);
  const Guid hd = rig->port_guid_of("hd");
  const Lid sm_lid = rig->lid_of("ha");
  std::atomic<bool> stop{false};
  std::size_t before = rig->fabric->sent.size();
  rig->fabric->set_link(rig->fabric->index("hd"), 1, false);
  ASSERT_TRUE(rig->sm->sweep(stop).subnet_up);
  auto r = first_sends(reports(*rig, before));
  ASSERT_EQ(r.size(), 1u);
  NoticeView v{r[0].notice};
  EXPECT_EQ(v.trap_number(), 65);
  EXPECT_EQ(v.type(), 3) << "Subnet Management";
  EXPECT_EQ(v.producer(), 4u) << "Class Manager";
  EXPECT_EQ(v.issuer_lid(), sm_lid);
  EXPECT_EQ(v.issuer_gid(), gid_of(rig->port_guid_of("ha")));
  EXPECT_EQ(v.details_gid(), gid_of(hd));
  const std::uint64_t before_tid = r[0].header.tid;

  before = rig->fabric->sent.size();
  rig->fabric->set_link(rig->fabric->index("hd"), 1, true);
  ASSERT_TRUE(rig->sm->sweep(stop).subnet_up);
  // The sweep's time also retried the unanswered Report about trap 65.
  r = first_sends(reports(*rig, before));
  std::erase_if(r, [&](const Report& x) { return x.header.tid == before_tid; });
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(NoticeView{r[0].notice}.trap_number(), 64);
  EXPECT_EQ(NoticeView{r[0].notice}.details_gid(), gid_of(hd));
}

TEST(Reports, DropEventSubscriptionsRemovesTheGonePortsSubscriptions) {
  for (bool drop : {false, true}) {
    conf::Options o;
    o.drop_event_subscriptions = drop;
    auto rig = rig_with(nullptr, o);
    ASSERT_EQ(inform(*rig, {}, "hd")->header.status, 0);
    ASSERT_EQ(inform(*rig, {}, "hb")->header.status, 0);
    std::atomic<bool> stop{false};
    rig->fabric->set_link(rig->fabric->index("hd"), 1, false);
    ASSERT_TRUE(rig->sm->sweep(stop).subnet_up);
    EXPECT_EQ(rig->sa().state().informs.subscriptions().size(), drop ? 1u : 2u) << drop;
  }
}

// o13-17.1.2: a subscription whose source it may not see is removed, unless it
// asked for every source (LIDRangeBegin 0xFFFF).
TEST(Reports, PartitionMismatchRevokesRangeSubscriptions) {
  auto rig = rig_with(kSplit);
  const Lid sm_lid = rig->lid_of("ha");
  Inform range;  // 64/65 are issued by the SM: its LID is the issuer
  range.lid_begin = sm_lid;
  ASSERT_EQ(inform(*rig, range, "hb")->header.status, 0);
  ASSERT_EQ(inform(*rig, {}, "hb", 0x41)->header.status, 0);  // all sources
  const std::size_t before = rig->fabric->sent.size();
  std::atomic<bool> stop{false};
  rig->fabric->set_link(rig->fabric->index("hd"), 1, false);  // hd: Other, hb: B
  ASSERT_TRUE(rig->sm->sweep(stop).subnet_up);
  EXPECT_TRUE(reports(*rig, before).empty()) << "hb may not hear about hd";
  ASSERT_EQ(rig->sa().state().informs.subscriptions().size(), 1u);
  EXPECT_EQ(rig->sa().state().informs.subscriptions()[0].report_addr.qpn, 0x41u);
  EXPECT_EQ(rig->sa().state().informs.counters().revoked, 1u);
}

TEST(Reports, GroupTraps66And67ReachHoldersOfTheGroupPKey) {
  auto rig = rig_with(kSplit);
  Inform i;
  ASSERT_EQ(inform(*rig, i, "hb")->header.status, 0);
  ASSERT_EQ(inform(*rig, i, "hc")->header.status, 0);
  Gid mgid{};
  mgid[0] = 0xff;
  mgid[1] = 0x12;
  mgid[15] = 0x42;
  std::size_t before = rig->fabric->sent.size();
  rig->sa().report_group_change(true, mgid, 0x8020);  // Other: hc holds it, hb does not
  auto r = reports(*rig, before);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].to.lid, rig->lid_of("hc"));
  const NoticeView v{r[0].notice};
  EXPECT_EQ(v.trap_number(), 66);
  EXPECT_EQ(v.details_gid(), mgid);
  EXPECT_EQ(v.issuer_lid(), rig->lid_of("ha"));
  before = rig->fabric->sent.size();
  rig->sa().report_group_change(false, mgid, 0xFFFF);
  r = reports(*rig, before);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(NoticeView{r[0].notice}.trap_number(), 67);
}

// ---- the SA database ----

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(SaDatabase, DumpThenANewSmRestoresServicesAndSubscriptions) {
  conf::Options o;
  o.sa_db_dump = true;
  auto first = rig_with(nullptr, o);
  Service forever;
  forever.gid = gid_of(first->port_guid_of("ha"));
  forever.name = "forever";
  Service leased = forever;
  leased.id = 0x99;
  leased.name = "leased";
  leased.lease = 10000;
  ASSERT_EQ(sr(*first, method::kSet, forever, kRegister, "ha")->header.status, 0);
  ASSERT_EQ(sr(*first, method::kSet, leased, kRegister, "ha")->header.status, 0);
  Inform i;
  i.trap = 128;
  ASSERT_EQ(inform(*first, i, "hb", 0x40)->header.status, 0);
  ASSERT_TRUE(first->sa().dump_db());
  EXPECT_FALSE(first->sa().dump_db()) << "nothing changed since";
  const std::string path = first->cache_dir + "/opensm-sa.dump";
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u) << "it holds ServiceKeys";
  const std::string text = read_text(path);
  EXPECT_NE(text.find("Service Record: id=0x0000000000001000 gid=0xfe80000000000000:"),
            std::string::npos);
  EXPECT_NE(text.find("name='forever'"), std::string::npos);
  EXPECT_NE(text.find("InformInfo Record: subscriber_gid=0xfe80000000000000:"), std::string::npos);

  const std::string copy = first->cache_dir + "/restore.dump";
  std::filesystem::copy_file(path, copy);
  conf::Options o2;
  o2.sa_db_file = copy;
  auto second = rig_with(nullptr, o2);
  std::filesystem::remove(copy);
  auto t = table(*second, "ha", /*sm_key=*/1);
  ASSERT_TRUE(t);
  ASSERT_EQ(t->record_count(), 2u);
  EXPECT_EQ(name_of(t->record(0)), "leased") << "newest first, as registered";
  EXPECT_EQ(name_of(t->record(1)), "forever");
  EXPECT_EQ(t->record(0)[32], 0x5a) << "ServiceKey kept";
  auto subs = records(*second, "ha", 1);
  ASSERT_EQ(subs->record_count(), 1u);
  EXPECT_EQ(get(subs->record(0), 24 + 28, 3), 0x40u);
  // The lease goes on from what was left, counted from the load (the SM's
  // construction, at the fake clock's start) on the SA's clock.
  const ServiceStore::Entry& e = second->sa().state().services.entries()[0];
  ASSERT_FALSE(e.infinite);
  const auto left = e.expires - Clock::TimePoint{std::chrono::seconds(1000)};
  EXPECT_LE(left, std::chrono::seconds(10000));
  EXPECT_GE(left, std::chrono::seconds(9998));  // the wall clock may tick in between
  second->clock.set(e.expires - std::chrono::seconds(1));
  second->sa().tick();
  EXPECT_EQ(table(*second, "ha")->record_count(), 2u);
  second->clock.set(e.expires);
  second->sa().tick();
  EXPECT_EQ(table(*second, "ha")->record_count(), 1u);
  // The restored subscription gets Reports at its old address.
  const std::size_t before = second->fabric->sent.size();
  const Lid s1 = second->lid_of("s1");
  second->sa().forward_trap(trap_notice(128, s1), s1);
  const auto r = reports(*second, before);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].to.lid, second->lid_of("hb"));
  EXPECT_EQ(r[0].to.qpn, 0x40u);
}

TEST(SaDatabase, SweepsWriteTheDumpOnlyWithSaDbDump) {
  for (bool dump : {false, true}) {
    conf::Options o;
    o.sa_db_dump = dump;
    auto rig = rig_with(nullptr, o);
    Service s;
    s.gid = gid_of(rig->port_guid_of("ha"));
    ASSERT_EQ(sr(*rig, method::kSet, s, kRegister, "ha")->header.status, 0);
    std::atomic<bool> stop{false};
    rig->sm->sweep(stop);  // a light sweep
    EXPECT_EQ(std::filesystem::exists(rig->cache_dir + "/opensm-sa.dump"), dump);
  }
}

// A file as OpenSM 3.3 writes it, multicast group and member included.
constexpr const char* kOpenSmDump =
    "MC Group 0xc000  (well known): mgid=0xff12401bffff0000:0x00000000ffffffff "
    "port_gid=0x0000000000000000:0x0000000000000000 qkey=0x00000b1b mlid=0xc000 mtu=0x84 "
    "tclass=0x00 pkey=0xffff rate=0x83 pkt_life=0x92 sl_flow_hop=0x00000000 scope_state=0x21 "
    "proxy_join=0x0\n\n"
    "mcm_port: port_gid=0xfe80000000000000:0x0000000000100003 scope_state=0x21 proxy_join=0x0\n\n"
    "InformInfo Record: subscriber_gid=0xfe80000000000000:0x0000000000100003 "
    "subscriber_enum=0x0 InformInfo: gid=0x0000000000000000:0x0000000000000000 "
    "lid_range_begin=0xffff lid_range_end=0x0 is_generic=0x1 subscribe=0x1 trap_type=0xffff "
    "trap_num=0x40 qpn_resp_time_val=0x113 node_type=0xffffff rep_addr: lid=0x0003 "
    "path_bits=0x00 static_rate=0x00 remote_qp=0x00000001 remote_qkey=0x80010000 "
    "pkey_ix=0x0000 sl=0x00\n\n"
    "Service Record: id=0x0000000000000abc gid=0xfe80000000000000:0x0000000000100001 "
    "pkey=0xffff lease=0xffffffff key=0x0102030405060708:0x090a0b0c0d0e0f10 name='osm svc' "
    "data8=0x0100000000000000:0x0000000000000002 data16=0x0003000000000000:0x0000000000000000 "
    "data32=0x0000000400000000:0x0000000000000000 data64=0x0000000000000005:0x0000000000000006 "
    "modified_time=0x5f000000 lease_period=0xffffffff\n\n";

TEST(SaDatabase, ReadsOpenSmsFileAndWritesItBackTheSame) {
  const SaDbParse p = parse_sa_db(kOpenSmDump, "opensm-sa.dump");
  ASSERT_FALSE(p.error) << *p.error;
  EXPECT_TRUE(p.warnings.empty());
  ASSERT_EQ(p.db.services.size(), 1u);
  const auto& rec = p.db.services[0].record;
  EXPECT_EQ(get(rec, 0, 8), 0xabcu);
  EXPECT_EQ(get(rec, 16, 8), 0x100001u);
  EXPECT_EQ(name_of(rec), "osm svc");
  EXPECT_EQ(rec[32], 1);
  EXPECT_EQ(rec[47], 0x10);
  EXPECT_EQ(rec[112], 1);           // data8[0]
  EXPECT_EQ(rec[127], 2);           // data8[15]
  EXPECT_EQ(get(rec, 128, 2), 3u);  // data16[0]
  EXPECT_EQ(get(rec, 144, 4), 4u);  // data32[0]
  EXPECT_EQ(get(rec, 160, 8), 5u);  // data64[0]
  EXPECT_EQ(get(rec, 168, 8), 6u);  // data64[1]
  ASSERT_EQ(p.db.informs.size(), 1u);
  const Subscription& s = p.db.informs[0];
  EXPECT_EQ(get(s.info, 26, 2), 0x40u);
  EXPECT_EQ(get(s.info, 28, 4), 0x113u);
  EXPECT_EQ(get(s.info, 33, 3), 0xFFFFFFu);
  EXPECT_EQ(s.report_addr.lid, 3);
  EXPECT_EQ(s.report_addr.qpn, 1u);
  EXPECT_EQ(s.report_addr.qkey, 0x80010000u);
  ASSERT_EQ(p.db.kept.groups.size(), 1u);
  EXPECT_TRUE(p.db.kept.groups[0].well_known);
  EXPECT_EQ(p.db.kept.groups[0].mlid, 0xc000);
  ASSERT_EQ(p.db.kept.groups[0].members.size(), 1u);
  EXPECT_EQ(format_sa_db(p.db), kOpenSmDump);
}

TEST(SaDatabase, MalformedLineStopsTheReadingWithFileAndLine) {
  const std::string text =
      std::string(kOpenSmDump) + "Service Record: id=0x1 gid=0xfe80000000000000:0xZZ pkey=0xffff\n";
  const SaDbParse p = parse_sa_db(text, "/etc/opensm/sa.db");
  ASSERT_TRUE(p.error);
  EXPECT_EQ(*p.error,
            "/etc/opensm/sa.db:9: Service Record: cannot read a hexadecimal value of at most 64 "
            "bits after \":0x\"");
  EXPECT_EQ(p.db.services.size(), 1u) << "what came before is kept";

  const SaDbParse missing =
      parse_sa_db("InformInfo Record: subscriber_gid=0x1:0x2 subscriber_enum=0x0\n", "f");
  ASSERT_TRUE(missing.error);
  EXPECT_EQ(*missing.error, "f:1: InformInfo Record: cannot find \" gid=0x\"");
  const SaDbParse too_wide =
      parse_sa_db("GUIDInfo Record: base_guid=0x1 lid=0x10000 block_num=0x0\n", "f");
  ASSERT_TRUE(too_wide.error);
  EXPECT_NE(too_wide.error->find("16 bits after \" lid=0x\""), std::string::npos);

  const SaDbParse junk = parse_sa_db("# a comment\n\nhello world\n", "f");
  EXPECT_FALSE(junk.error);
  ASSERT_EQ(junk.warnings.size(), 1u);
  EXPECT_EQ(junk.warnings[0].rfind("f:3: ", 0), 0u);
}

TEST(SaDatabase, BadOrMissingFileIsAnErrorAndTheSmRuns) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("ibsm-sadb-" + std::to_string(::getpid()) + ".dump");
  std::ofstream(path) << kOpenSmDump << "Service Record: id=0x\n";
  conf::Options o;
  o.sa_db_file = path.string();
  auto rig = rig_with(nullptr, o);  // swept: the subnet came up
  ASSERT_TRUE(rig->sa().snapshot());
  EXPECT_EQ(table(*rig, "ha")->record_count(), 1u) << "the good record before the bad line";
  auto st = rig->sa().load_db();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find(path.string() + ":9:"), std::string::npos)
      << st.error().message;
  std::filesystem::remove(path);

  conf::Options gone;
  gone.sa_db_file = "/nonexistent/ibsm-test/opensm-sa.dump";
  auto rig2 = rig_with(nullptr, gone);
  ASSERT_TRUE(rig2->sa().snapshot());
  EXPECT_FALSE(rig2->sa().load_db().ok());
  EXPECT_EQ(table(*rig2, "ha")->record_count(), 0u);
}

TEST(SaDatabase, RemainingLeaseFollowsTheWallClock) {
  EXPECT_FALSE(remaining_lease(100, kInfiniteLease, 5000).has_value());
  EXPECT_EQ(remaining_lease(1000, 60, 1010), std::chrono::seconds(50));
  EXPECT_EQ(remaining_lease(1000, 60, 2000), std::chrono::seconds(0));
  EXPECT_EQ(remaining_lease(1000, 60, 900), std::chrono::seconds(60)) << "clock went back";
}

TEST(SaDatabase, RestoredSubscriptionHearsAboutEveryPortAtTheFirstSweep) {
  // OpenSM restores the file before its first sweep, whose ports are all new.
  const auto path = std::filesystem::temp_directory_path() /
                    ("ibsm-sadb64-" + std::to_string(::getpid()) + ".dump");
  std::ofstream(path) << kOpenSmDump;  // LID 3 subscribed to trap 64 from any source
  conf::Options o;
  o.sa_db_file = path.string();
  auto rig = rig_with(nullptr, o);
  std::filesystem::remove(path);
  const auto r = first_sends(reports(*rig));
  // Six CA ports (hx has two) and two switches; all in the default partition.
  EXPECT_EQ(r.size(), 8u);
  for (const Report& x : r) {
    EXPECT_EQ(NoticeView{x.notice}.trap_number(), 64);
    EXPECT_EQ(x.to.lid, 3);
  }
}

}  // namespace
}  // namespace ibsm::sa
