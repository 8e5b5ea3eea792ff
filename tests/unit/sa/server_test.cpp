// The SA's dispatch rules and framing, observed as a client would: the bytes
// that leave through the transport for each request.
#include <gtest/gtest.h>

#include "sa/record_layout.hpp"
#include "tests/unit/sa/sa_fixture.hpp"

namespace ibsm::sa {
namespace {

using satest::SaRig;

TEST(SaServer, ClassPortInfoAsOpenSmAdvertisesIt) {
  SaRig rig;
  const std::vector<std::uint8_t> none;
  auto a = rig.request(method::kGet, attr::kClassPortInfo, none, 0, rig.lid_of("ha"));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.method, method::kGetResp);
  EXPECT_EQ(a->header.status, 0);
  ASSERT_GE(a->data.size(), 72u);
  EXPECT_EQ(a->data[0], 1);                           // BaseVersion
  EXPECT_EQ(a->data[1], 2);                           // ClassVersion
  EXPECT_EQ((a->data[2] << 8) | a->data[3], 0x2602);  // CapabilityMask
  const std::uint32_t w =
      (std::uint32_t{a->data[4]} << 24) | (a->data[5] << 16) | (a->data[6] << 8) | a->data[7];
  EXPECT_EQ(w >> 5, 0xB5E8u);  // CapabilityMask2
  EXPECT_EQ(w & 0x1f, 0x10u);  // RespTimeValue for 200 ms
  EXPECT_EQ(a->data[35], 1);   // RedirectQP
}

TEST(SaServer, ResponseEchoesTidAndClearsSmKey) {
  SaRig rig;
  std::vector<std::uint8_t> q(112, 0);
  const Lid lid = rig.lid_of("hb");
  q[0] = static_cast<std::uint8_t>(lid >> 8);
  q[1] = static_cast<std::uint8_t>(lid);
  auto a = rig.request(method::kGet, attr::kNodeRecord, q, 1, rig.lid_of("ha"), /*sm_key=*/1);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, 0);
  EXPECT_EQ(a->header.sm_key, 0u);
  EXPECT_EQ(a->header.tid, 0x1000u);
  EXPECT_EQ(a->header.attr_offset, 14);
  EXPECT_EQ(a->bytes.size(), 56u + 112u);
  EXPECT_EQ(a->record_count(), 1u);
}

TEST(SaServer, WrongNonZeroSmKeyIsDropped) {
  SaRig rig;
  std::vector<std::uint8_t> q(112, 0);
  EXPECT_FALSE(rig.request(method::kGetTable, attr::kNodeRecord, q, 0, rig.lid_of("ha"), 2));
  EXPECT_EQ(rig.sa().counters().bad_key, 1u);
}

TEST(SaServer, SaKeyFromOpensmConfDecidesWhichKeyIsAccepted) {
  conf::Options o;
  o.sa_key = 0x1234;
  SaRig rig(satest::kSmallNet, o);
  std::vector<std::uint8_t> q(8, 0);
  EXPECT_FALSE(rig.request(method::kGet, attr::kClassPortInfo, q, 0, rig.lid_of("ha"), 1));
  EXPECT_TRUE(rig.request(method::kGet, attr::kClassPortInfo, q, 0, rig.lid_of("ha"), 0x1234));
  EXPECT_TRUE(rig.request(method::kGet, attr::kClassPortInfo, q, 0, rig.lid_of("ha"), 0));
}

TEST(SaServer, UnknownAttributeAndMethodAreDropped) {
  SaRig rig;
  std::vector<std::uint8_t> q(8, 0);
  EXPECT_FALSE(rig.request(method::kGet, 0x00ee, q, 0, rig.lid_of("ha")));
  EXPECT_FALSE(rig.request(0x03 /* Send */, attr::kNodeRecord, q, 0, rig.lid_of("ha")));
}

TEST(SaServer, KnownAttributeWithWrongMethodGetsStatus0C) {
  SaRig rig;
  std::vector<std::uint8_t> q(8, 0);
  auto a = rig.request(method::kSet, attr::kNodeRecord, q, 0, rig.lid_of("ha"));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.method, method::kGetResp);
  EXPECT_EQ(a->header.status, status::kMethodAttrUnsupported);
  EXPECT_EQ(a->bytes.size(), 256u);
}

TEST(SaServer, GetMatchingNothingOrManyGetsStatus) {
  SaRig rig;
  std::vector<std::uint8_t> q(112, 0);
  q[1] = 0xEE;  // LID 0xEE: nobody
  auto none = rig.request(method::kGet, attr::kNodeRecord, q, 1, rig.lid_of("ha"));
  ASSERT_TRUE(none);
  EXPECT_EQ(none->header.status, status::kNoRecords);
  auto many = rig.request(method::kGet, attr::kNodeRecord, q, 0, rig.lid_of("ha"));
  ASSERT_TRUE(many);
  EXPECT_EQ(many->header.status, status::kTooManyRecords);
  // GetTable of nothing: an empty table, never NO_RECORDS.
  auto empty = rig.request(method::kGetTable, attr::kNodeRecord, q, 1, rig.lid_of("ha"));
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->header.status, 0);
  EXPECT_EQ(empty->header.attr_offset, 0);
  EXPECT_EQ(empty->bytes.size(), 56u);
}

TEST(SaServer, GetTableWithKernelRmppIsOneActiveMessage) {
  SaRig rig;
  std::vector<std::uint8_t> q(112, 0);
  auto a = rig.request(method::kGetTable, attr::kNodeRecord, q, 0, rig.lid_of("ha"));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.method, method::kGetTableResp);
  // 2 switches + 4 single-port CAs + a 2-port CA = 8 records of 112 bytes.
  EXPECT_EQ(a->bytes.size(), 56u + 8u * 112u);
  EXPECT_EQ(a->header.rmpp_flags, rmpp::kFlagActive);
  EXPECT_EQ(a->header.rmpp_type, 0);
  EXPECT_EQ(a->header.attr_offset, 14);
}

TEST(SaServer, GetTableOnSingleMadTransportIsTrimmedAndSelfContained) {
  SaRig rig(satest::kSmallNet, {}, 256);
  std::vector<std::uint8_t> q(112, 0);
  auto a = rig.request(method::kGetTable, attr::kNodeRecord, q, 0, rig.lid_of("ha"));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->bytes.size(), 56u + 112u);
  EXPECT_EQ(a->header.rmpp_flags, rmpp::kFlagActive | rmpp::kFlagFirst | rmpp::kFlagLast);
  EXPECT_EQ(a->header.rmpp_type, rmpp::kTypeData);
  EXPECT_EQ(a->header.rmpp_segment, 1u);
  EXPECT_EQ(a->header.rmpp_length, 56u + 112u - 36u);
  EXPECT_EQ(rig.sa().counters().trimmed, 1u);
}

TEST(SaServer, NotServingBeforeTheFirstSweep) {
  SaRig rig;
  rig.sa().set_serving(false);
  std::vector<std::uint8_t> q(8, 0);
  EXPECT_FALSE(rig.request(method::kGet, attr::kClassPortInfo, q, 0, rig.lid_of("ha")));
  EXPECT_EQ(rig.sa().counters().not_serving, 1u);
}

TEST(SaServer, TruncatedAndForeignMadsAreCountedNotFatal) {
  SaRig rig;
  std::vector<std::uint8_t> shortmad(40, 0);
  shortmad[0] = 1;
  shortmad[1] = 3;
  EXPECT_FALSE(rig.raw(shortmad, rig.lid_of("ha")));
  std::vector<std::uint8_t> v1(256, 0);
  v1[0] = 1;
  v1[1] = 3;
  v1[2] = 1;  // class version 1
  v1[3] = method::kGet;
  v1[17] = 1;  // ClassPortInfo
  auto a = rig.raw(v1, rig.lid_of("ha"));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kBadVersion);
  EXPECT_EQ(rig.sa().counters().malformed, 1u);
}

// The snapshot's LID index reaches the highest LID in use, no further; what is kept of
// it for the next sweep's port-change reports (port_presence) finds the same ports by
// GUID with their LIDs and P_Key tables, and carries no LFTs, PortInfo or path tables.
TEST(SaServer, LidIndexAndPortPresenceKeepWhatTheyAreFor) {
  SaRig rig;
  const SnapshotPtr snap = rig.sa().snapshot();
  ASSERT_TRUE(snap);
  Lid top = 0;
  for (const SnapNode& n : snap->nodes)
    for (const SnapPort& p : n.ports)
      if (p.present && p.lid != 0 && (n.is_switch() ? p.num == 0 : p.num != 0))
        top = std::max<Lid>(top, static_cast<Lid>(p.lid + (1u << p.lmc) - 1));
  ASSERT_GT(top, 0);
  EXPECT_EQ(snap->by_lid.size(), std::size_t{top} + 1);
  EXPECT_TRUE(snap->find_lid(top).valid());
  EXPECT_FALSE(snap->find_lid(static_cast<Lid>(top + 1)).valid());
  EXPECT_FALSE(snap->find_lid(0xBFFF).valid());

  const SnapshotPtr kept = port_presence(*snap);
  EXPECT_EQ(kept->nodes.size(), snap->nodes.size());
  EXPECT_EQ(kept->by_port_guid.size(), snap->by_port_guid.size());
  EXPECT_FALSE(kept->path_tables);
  EXPECT_TRUE(kept->by_lid.empty());
  for (const auto& [guid, ref] : snap->by_port_guid) {
    const PortRef k = kept->find_port_guid(guid);
    ASSERT_TRUE(k.valid()) << std::hex << guid;
    EXPECT_EQ(k, ref);
    EXPECT_EQ(kept->port(k).lid, snap->port(ref).lid);
    EXPECT_EQ(kept->port(k).pkeys, snap->port(ref).pkeys);
    EXPECT_FALSE(kept->port(k).pkeys.empty());
  }
  for (const SnapNode& n : kept->nodes) {
    EXPECT_TRUE(n.lft.empty());
    if (n.is_switch()) {
      EXPECT_EQ(n.ports.size(), 1u);
    }
  }
}

// amend changes the published snapshot in place when the SA alone holds it; a
// snapshot someone else still reads is never changed under them: they keep the old
// one and the SA publishes a changed copy.
// amend() never changes a snapshot someone else holds (a query in flight, the SM's
// operator snapshot, which holds the SA's on fabrics under 1000 nodes: ops): the
// holder keeps what it had, later readers see the amended copy.
TEST(SaServer, AmendNeverChangesASnapshotSomeoneHolds) {
  SaRig rig;
  const std::uint64_t gen = rig.sa().snapshot()->generation;
  const SnapshotPtr reader = rig.sa().snapshot();
  rig.sa().amend([](Snapshot& s) { s.generation += 10; });
  EXPECT_NE(rig.sa().snapshot(), reader);
  EXPECT_EQ(reader->generation, gen);
  EXPECT_EQ(rig.sa().snapshot()->generation, gen + 10);
  EXPECT_EQ(rig.sa().snapshot()->nodes.size(), reader->nodes.size());
}

}  // namespace
}  // namespace ibsm::sa
