// SA framing as the wire sees it, byte for byte: GetTableResp through the kernel's
// RMPP (one buffer, only ACTIVE set, records straddling the 200-byte segments) and
// through a single-MAD transport (one self-contained RMPP segment), GetResp
// lengths, error answers, DeleteResp, TIDs echoed whole, answers retracing the
// requester's address vector; and how the real transport registers the SA agent.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "mad/umad_transport.hpp"
#include "tests/unit/sa/fuzz_harness.hpp"
#include "tests/unit/sa/sa_fixture.hpp"

namespace ibsm::sa {
namespace {

using satest::SaRig;
using Bytes = std::vector<std::uint8_t>;

constexpr std::uint64_t kTid = 0xcafe0001'1f10545bull;  // upper half as ibsim/the kernel set it
constexpr std::uint64_t kLifeMask = 3ull << 10;         // MCMR bits OpenSM ignores in matching

void put(Bytes& b, std::size_t off, std::uint64_t v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    b[off + i] = static_cast<std::uint8_t>(v >> (8 * (n - 1 - i)));
}

Bytes request_mad(std::uint8_t method, std::uint16_t attr, std::uint64_t mask,
                  std::uint64_t tid = kTid, std::uint32_t attr_mod = 0) {
  Bytes b(kMadSize, 0);
  b[0] = 1;
  b[1] = kClassSubnAdm;
  b[2] = kClassVersion;
  b[3] = method;
  put(b, 8, tid, 8);
  put(b, 16, attr, 2);
  put(b, 20, attr_mod, 4);
  put(b, 48, mask, 8);
  return b;
}

// The SA header a response must carry: the request's TID, attribute, modifier and
// mask; SM_Key 0; the given method, status, RMPP bytes and AttributeOffset.
Bytes response_header(std::uint8_t method, std::uint16_t status, std::uint16_t attr,
                      std::uint64_t mask, std::uint16_t attr_offset,
                      const std::array<std::uint8_t, 12>& rmpp, std::uint32_t attr_mod = 0) {
  Bytes b(kHeaderSize, 0);
  b[0] = 1;
  b[1] = kClassSubnAdm;
  b[2] = kClassVersion;
  b[3] = method;
  put(b, 4, status, 2);
  put(b, 8, kTid, 8);
  put(b, 16, attr, 2);
  put(b, 20, attr_mod, 4);
  std::copy(rmpp.begin(), rmpp.end(), b.begin() + 24);
  put(b, 44, attr_offset, 2);
  put(b, 48, mask, 8);
  return b;
}

// The record OpenSM answers for the IPoIB broadcast group of `pkey` (untrusted).
Bytes broadcast_record(std::uint16_t pkey, std::uint16_t mlid) {
  Bytes r(56, 0);
  const std::uint16_t full = pkey | 0x8000u;  // OpenSM puts the full P_Key into the MGID
  const Bytes mgid = {0xff,
                      0x12,
                      0x40,
                      0x1b,
                      static_cast<std::uint8_t>(full >> 8),
                      static_cast<std::uint8_t>(full),
                      0,
                      0,
                      0,
                      0,
                      0,
                      0,
                      0xff,
                      0xff,
                      0xff,
                      0xff};
  std::copy(mgid.begin(), mgid.end(), r.begin());
  put(r, 32, 0x0b1b, 4);
  put(r, 36, mlid, 2);
  r[38] = 0x84;
  put(r, 40, full, 2);
  r[42] = 0x83;
  r[43] = 0x92;
  r[48] = 0x20;
  return r;
}

// Five IPoIB partitions: five groups of 56-byte records, created Default first.
constexpr const char* kFivePartitions =
    "Default=0x7fff, ipoib : ALL=full;\n"
    "A=0x0011, ipoib : ALL=full;\nB=0x0012, ipoib : ALL=full;\n"
    "C=0x0013, ipoib : ALL=full;\nD=0x0014, ipoib : ALL=full;\n";

// The records of kFivePartitions in MGID order.
Bytes five_records(std::size_t n) {
  const std::array<std::pair<std::uint16_t, std::uint16_t>, 5> groups = {
      {{0x0011, 0xc001}, {0x0012, 0xc002}, {0x0013, 0xc003}, {0x0014, 0xc004}, {0x7fff, 0xc000}}};
  Bytes out;
  for (std::size_t i = 0; i < n; ++i) {
    const Bytes r = broadcast_record(groups[i].first, groups[i].second);
    out.insert(out.end(), r.begin(), r.end());
  }
  return out;
}

std::unique_ptr<SaRig> rig_with(const char* partitions, std::size_t gsi_max) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("ibsm-framing-" + std::to_string(::getpid()) + ".conf");
  conf::Options o;
  if (partitions != nullptr) {
    std::ofstream(path) << partitions;
    o.partition_config_file = path.string();
  } else {
    o.partition_config_file = "/nonexistent/ibsm-test/partitions.conf";
  }
  auto rig = std::make_unique<SaRig>(satest::kSmallNet, o, gsi_max);
  std::filesystem::remove(path);
  return rig;
}

// Hands `bytes` to the SA as arriving from `from`; the one message sent, if any.
std::optional<satest::CapturingFabric::Sent> feed(SaRig& rig, const Bytes& bytes,
                                                  const mad::MadAddress& from) {
  mad::IncomingMad in;
  in.length = bytes.size();
  std::copy_n(bytes.begin(), std::min<std::size_t>(bytes.size(), 256), in.bytes.begin());
  if (bytes.size() > 256) in.tail.assign(bytes.begin() + 256, bytes.end());
  in.slid = from.lid;
  in.sqpn = from.qpn;
  in.from = from;
  const std::size_t before = rig.fabric->sent.size();
  rig.sa().handle(in);
  if (rig.fabric->sent.size() == before) return std::nullopt;
  EXPECT_EQ(rig.fabric->sent.size(), before + 1) << "one request, one answer";
  return rig.fabric->sent.back();
}

std::optional<satest::CapturingFabric::Sent> feed(SaRig& rig, const Bytes& bytes, Lid lid) {
  mad::MadAddress from;
  from.lid = lid;
  return feed(rig, bytes, from);
}

TEST(SaFraming, GetTableThroughKernelRmppIsOneBufferWithOnlyActive) {
  auto rig = rig_with(kFivePartitions, 1u << 20);
  auto sent = feed(*rig, request_mad(method::kGetTable, attr::kMcMemberRecord, kLifeMask),
                   rig->lid_of("ha"));
  ASSERT_TRUE(sent);
  // RMPP: version 0, type 0, RRespTime 0 + ACTIVE, status 0, segment 0, length 0; the
  // kernel numbers the segments and fills the rest.
  Bytes want = response_header(method::kGetTableResp, 0, attr::kMcMemberRecord, kLifeMask, 7,
                               {0, 0, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  const Bytes recs = five_records(5);
  want.insert(want.end(), recs.begin(), recs.end());
  EXPECT_EQ(sent->bytes, want);
  ASSERT_EQ(sent->bytes.size(), 56u + 5u * 56u);

  // The kernel cuts the data into 200-byte segments behind copies of the header; a
  // record is not moved to the next segment, so the fourth (data bytes 168..224)
  // straddles the first boundary and comes back whole when the client's kernel
  // concatenates the segments.
  constexpr std::size_t kSeg = kDataSize;
  const Bytes data(sent->bytes.begin() + kHeaderSize, sent->bytes.end());
  std::vector<Bytes> segments;
  for (std::size_t off = 0; off < data.size(); off += kSeg) {
    Bytes seg(data.begin() + static_cast<std::ptrdiff_t>(off),
              data.begin() + static_cast<std::ptrdiff_t>(std::min(data.size(), off + kSeg)));
    seg.resize(kSeg, 0);
    segments.push_back(seg);
  }
  ASSERT_EQ(segments.size(), 2u);
  const Bytes fourth(recs.begin() + 168, recs.begin() + 224);
  EXPECT_EQ(Bytes(segments[0].begin() + 168, segments[0].end()),
            Bytes(fourth.begin(), fourth.begin() + 32));
  EXPECT_EQ(Bytes(segments[1].begin(), segments[1].begin() + 24),
            Bytes(fourth.begin() + 32, fourth.end()));
  // saquery's count: (length - 56) / (AttributeOffset * 8).
  EXPECT_EQ((sent->bytes.size() - 56) / (7 * 8), 5u);
}

TEST(SaFraming, GetTableOnSingleMadTransportIsOneSelfContainedSegment) {
  auto rig = rig_with(kFivePartitions, 256);
  auto sent = feed(*rig, request_mad(method::kGetTable, attr::kMcMemberRecord, kLifeMask),
                   rig->lid_of("ha"));
  ASSERT_TRUE(sent);
  // Three records fit 200 bytes. RMPP: version 1, DATA, RRespTime 14 with
  // FIRST|LAST|ACTIVE (0x77), segment 1, PayloadLength = 224 - 36 = 188.
  Bytes want = response_header(method::kGetTableResp, 0, attr::kMcMemberRecord, kLifeMask, 7,
                               {1, 1, 0x77, 0, 0, 0, 0, 1, 0, 0, 0, 188});
  const Bytes recs = five_records(3);
  want.insert(want.end(), recs.begin(), recs.end());
  EXPECT_EQ(sent->bytes, want);
  EXPECT_EQ(rig->sa().counters().trimmed, 1u);
}

TEST(SaFraming, EmptyTableInBothFramings) {
  Bytes req = request_mad(method::kGetTable, attr::kMcMemberRecord, 1);  // MGID ::, nobody
  for (std::size_t gsi_max : {std::size_t{1} << 20, std::size_t{256}}) {
    auto rig = rig_with(nullptr, gsi_max);
    auto sent = feed(*rig, req, rig->lid_of("hb"));
    ASSERT_TRUE(sent);
    const std::array<std::uint8_t, 12> rmpp =
        gsi_max == 256 ? std::array<std::uint8_t, 12>{1, 1, 0x77, 0, 0, 0, 0, 1, 0, 0, 0, 20}
                       : std::array<std::uint8_t, 12>{0, 0, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    EXPECT_EQ(sent->bytes,
              response_header(method::kGetTableResp, 0, attr::kMcMemberRecord, 1, 0, rmpp));
  }
}

TEST(SaFraming, GetRespIsHeaderPlusOneRecordWithoutRmpp) {
  auto rig = rig_with(nullptr, 1u << 20);
  struct Case {
    std::uint16_t attr;
    std::uint64_t mask;
    std::size_t words;
  };
  const Lid ha = rig->lid_of("ha");
  for (const Case& c : {Case{attr::kClassPortInfo, 0, 9}, Case{attr::kMcMemberRecord, 0, 7},
                        Case{attr::kNodeRecord, 1, 14}}) {
    Bytes req = request_mad(method::kGet, c.attr, c.mask, kTid, 0x11223344);
    put(req, 56, ha, 2);  // NodeRecord LID
    // Junk in the request's RMPP header and AttributeOffset is not echoed.
    for (std::size_t i = 24; i < 36; ++i)
      req[i] = 0xa5;
    put(req, 44, 0x1234, 2);
    auto sent = feed(*rig, req, ha);
    ASSERT_TRUE(sent) << attr_name(c.attr);
    ASSERT_EQ(sent->bytes.size(), kHeaderSize + c.words * 8) << attr_name(c.attr);
    const Bytes head(sent->bytes.begin(), sent->bytes.begin() + kHeaderSize);
    EXPECT_EQ(head, response_header(method::kGetResp, 0, c.attr, c.mask,
                                    static_cast<std::uint16_t>(c.words), {}, 0x11223344))
        << attr_name(c.attr);
  }
}

TEST(SaFraming, ErrorAnswersAreWholeMadsWithoutRecords) {
  auto rig = rig_with(kFivePartitions, 1u << 20);
  const Lid ha = rig->lid_of("ha");
  struct Case {
    const char* what;
    Bytes request;
    std::uint8_t method;
    std::uint16_t status;
  };
  Bytes bad_mtu = request_mad(method::kGetTable, attr::kMcMemberRecord, 3ull << 4);
  bad_mtu[56 + 38] = 0x87;  // MTU selector 2, enum 7
  Bytes unknown_mgid = request_mad(method::kGet, attr::kMcMemberRecord, 1);
  unknown_mgid[56] = 0xff;
  Bytes version1 = request_mad(method::kGet, attr::kClassPortInfo, 0);
  version1[2] = 1;
  const std::vector<Case> cases = {
      {"Get of nothing", unknown_mgid, method::kGetResp, status::kNoRecords},
      {"Get of many", request_mad(method::kGet, attr::kNodeRecord, 0), method::kGetResp,
       status::kTooManyRecords},
      {"GetTable with a bad MTU", bad_mtu, method::kGetTableResp, status::kReqInvalid},
      {"class version 1", version1, method::kGetResp, status::kBadVersion},
      {"Set NodeRecord", request_mad(method::kSet, attr::kNodeRecord, 0), method::kGetResp,
       status::kMethodAttrUnsupported},
      {"Delete NodeRecord", request_mad(method::kDelete, attr::kNodeRecord, 1), method::kDeleteResp,
       status::kMethodAttrUnsupported},
  };
  for (const Case& c : cases) {
    Bytes req = c.request;
    put(req, 36, 1, 8);  // a trusted key is never echoed
    auto sent = feed(*rig, req, ha);
    ASSERT_TRUE(sent) << c.what;
    const Bytes& b = sent->bytes;
    ASSERT_EQ(b.size(), kMadSize) << c.what;
    const SaHeader h = decode_header(b);
    EXPECT_EQ(h.method, c.method) << c.what;
    EXPECT_EQ(h.status, c.status) << c.what;
    EXPECT_EQ(h.tid, kTid) << c.what;
    EXPECT_EQ(h.attr_id, decode_header(c.request).attr_id) << c.what;
    EXPECT_EQ(h.comp_mask, decode_header(c.request).comp_mask) << c.what;
    EXPECT_EQ(h.attr_offset, 0) << c.what;
    EXPECT_EQ(h.sm_key, 0u) << c.what;
    EXPECT_EQ(Bytes(b.begin() + kHeaderSize, b.end()), Bytes(kDataSize, 0)) << c.what;
  }
}

TEST(SaFraming, TidIsEchoedWholeAndResponsesAreNeverAnswered) {
  auto rig = rig_with(nullptr, 1u << 20);
  const Lid ha = rig->lid_of("ha");
  for (std::uint64_t tid :
       {0x0ull, 0xffffffffffffffffull, 0xdeadbeef12345678ull, 0x0001000000000001ull}) {
    auto sent = feed(*rig, request_mad(method::kGet, attr::kClassPortInfo, 0, tid), ha);
    ASSERT_TRUE(sent);
    EXPECT_EQ(decode_header(sent->bytes).tid, tid);
  }
  // A response (R bit) to the SA, or the kernel handing back a send it gave up
  // on, is never answered.
  EXPECT_FALSE(feed(*rig, request_mad(method::kGetResp, attr::kClassPortInfo, 0), ha));
  mad::IncomingMad timed_out;
  const Bytes req = request_mad(method::kGet, attr::kClassPortInfo, 0);
  std::copy(req.begin(), req.end(), timed_out.bytes.begin());
  timed_out.length = req.size();
  timed_out.status = 110;  // ETIMEDOUT
  timed_out.from.lid = ha;
  const std::size_t before = rig->fabric->sent.size();
  rig->sa().handle(timed_out);
  EXPECT_EQ(rig->fabric->sent.size(), before);
}

TEST(SaFraming, AnswerRetracesTheRequestersAddressVector) {
  auto rig = rig_with(nullptr, 1u << 20);
  mad::MadAddress from;
  from.lid = rig->lid_of("hx", 2);
  from.qpn = 0x2a;
  from.qkey = 0x80010000;
  from.sl = 5;
  from.pkey_index = 3;
  from.grh = true;
  for (std::size_t i = 0; i < 16; ++i)
    from.gid[i] = static_cast<std::uint8_t>(0xf0 + i);
  from.hop_limit = 7;
  from.traffic_class = 0x20;
  from.flow_label = 0x12345;
  auto sent = feed(*rig, request_mad(method::kGetTable, attr::kMcMemberRecord, 0), from);
  ASSERT_TRUE(sent);
  EXPECT_EQ(sent->to.lid, from.lid);
  EXPECT_EQ(sent->to.qpn, 0x2au);
  EXPECT_EQ(sent->to.qkey, 0x80010000u);
  EXPECT_EQ(sent->to.sl, 5);
  EXPECT_EQ(sent->to.pkey_index, 3);
  EXPECT_TRUE(sent->to.grh);
  EXPECT_EQ(sent->to.gid, from.gid);
  EXPECT_EQ(sent->to.hop_limit, 7);
  EXPECT_EQ(sent->to.traffic_class, 0x20);
  EXPECT_EQ(sent->to.flow_label, 0x12345u);

  // Without a GRH (umad2sim: SL 0, no GRH) none goes back.
  mad::MadAddress plain;
  plain.lid = rig->lid_of("hc");
  plain.qpn = 1;
  auto back = feed(*rig, request_mad(method::kGet, attr::kClassPortInfo, 0), plain);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->to.lid, plain.lid);
  EXPECT_EQ(back->to.qpn, 1u);
  EXPECT_EQ(back->to.sl, 0);
  EXPECT_FALSE(back->to.grh);
}

TEST(SaFraming, HeaderOnlyAndReassembledRequestsAreRead) {
  auto rig = rig_with(nullptr, 1u << 20);
  const Lid ha = rig->lid_of("ha");
  // 56 bytes, no record: the query record reads as zeros (mask 0 matches all).
  Bytes header_only = request_mad(method::kGetTable, attr::kMcMemberRecord, 0);
  header_only.resize(kHeaderSize);
  auto a = feed(*rig, header_only, ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->bytes.size(), 56u + 56u);
  // A request the kernel reassembled from several segments: the first record counts.
  Bytes longer = request_mad(method::kGet, attr::kMcMemberRecord, 1);
  const Bytes rec = broadcast_record(0x7fff, 0xc000);
  std::copy(rec.begin(), rec.end(), longer.begin() + 56);
  longer.resize(4096, 0xee);
  auto b = feed(*rig, longer, ha);
  ASSERT_TRUE(b);
  EXPECT_EQ(decode_header(b->bytes).status, 0);
  EXPECT_EQ(b->bytes.size(), 56u + 56u);
  // Shorter than the header, another base version, another class: dropped, counted.
  const auto malformed = rig->sa().counters().malformed;
  Bytes short_mad = request_mad(method::kGet, attr::kClassPortInfo, 0);
  short_mad.resize(55);
  EXPECT_FALSE(feed(*rig, short_mad, ha));
  Bytes v2 = request_mad(method::kGet, attr::kClassPortInfo, 0);
  v2[0] = 2;
  EXPECT_FALSE(feed(*rig, v2, ha));
  Bytes perf = request_mad(method::kGet, attr::kClassPortInfo, 0);
  perf[1] = 0x04;
  EXPECT_FALSE(feed(*rig, perf, ha));
  EXPECT_EQ(rig->sa().counters().malformed, malformed + 3);
}

// The real transport's SA registration, decided without a port.
TEST(SaAgentRegistration, KernelWithRmppGetsOneMessageOfAnyLength) {
  std::vector<int> asked;
  const auto r = mad::register_sa_agent(false, [&](int v) {
    asked.push_back(v);
    return 7;
  });
  EXPECT_EQ(asked, (std::vector<int>{1}));
  EXPECT_EQ(r.agent, 7);
  EXPECT_EQ(r.rmpp_version, 1);
  EXPECT_EQ(r.max_length, mad::kRmppMaxLength);
}

TEST(SaAgentRegistration, KernelRefusingRmppFallsBackToSingleMads) {
  std::vector<int> asked;
  const auto r = mad::register_sa_agent(false, [&](int v) {
    asked.push_back(v);
    return v == 1 ? -22 : 4;
  });
  EXPECT_EQ(asked, (std::vector<int>{1, 0}));
  EXPECT_EQ(r.agent, 4);
  EXPECT_EQ(r.rmpp_version, 0);
  EXPECT_EQ(r.max_length, kMadSize);
  EXPECT_NE(r.status.find("refused"), std::string::npos);
}

TEST(SaAgentRegistration, Umad2simNeverAsksForRmpp) {
  std::vector<int> asked;
  const auto r = mad::register_sa_agent(true, [&](int v) {
    asked.push_back(v);
    return 2;
  });
  EXPECT_EQ(asked, (std::vector<int>{0}));
  EXPECT_EQ(r.rmpp_version, 0);
  EXPECT_EQ(r.max_length, kMadSize);
  EXPECT_NE(r.status.find("umad2sim"), std::string::npos);
  const auto failed = mad::register_sa_agent(true, [](int) { return -1; });
  EXPECT_LT(failed.agent, 0);
  const auto failed_kernel = mad::register_sa_agent(false, [](int) { return -1; });
  EXPECT_LT(failed_kernel.agent, 0);
}

TEST(SaAgentRegistration, MethodMaskIsOpenSmsAndFramingFollowsTheLength) {
  const mad::MethodMask mask = mad::sa_agent_method_mask();
  constexpr unsigned kBits = 8 * sizeof(long);
  for (unsigned m = 0; m < 128; ++m) {
    const bool set = (mask[m / kBits] >> (m % kBits) & 1) != 0;
    const bool want = m == method::kGet || m == method::kSet || m == method::kGetTable ||
                      m == method::kGetMulti || m == method::kDelete;
    EXPECT_EQ(set, want) << "method 0x" << std::hex << m;
  }
  // What the registration allows decides the SA's framing.
  const auto kernel = mad::register_sa_agent(false, [](int) { return 1; });
  const auto sim = mad::register_sa_agent(true, [](int) { return 1; });
  EXPECT_EQ(rig_with(nullptr, kernel.max_length)->sa().framing(), Framing::kKernelRmpp);
  EXPECT_EQ(rig_with(nullptr, sim.max_length)->sa().framing(), Framing::kSingleMad);
}

// The fuzzers' judge (fuzz_harness.cpp) passes what the SA really sends and
// catches each way an answer can be malformed, so a clean fuzz run means something.
TEST(SaFuzzJudge, PassesRealAnswersAndCatchesBrokenOnes) {
  auto& h = satest::fuzz_harness();
  const Bytes table = request_mad(method::kGetTable, attr::kMcMemberRecord, 0);
  const Bytes get = request_mad(method::kGet, attr::kClassPortInfo, 0);
  const Lid ca = h.ca_lids().front();
  ASSERT_EQ(h.feed(table, ca, true), "");
  const Bytes kernel(h.last_answer());
  ASSERT_GT(kernel.size(), 56u + 56u);  // several groups: a multi-record table
  ASSERT_EQ(h.feed(table, ca, false), "");
  const Bytes single(h.last_answer());
  ASSERT_EQ(h.feed(get, ca, true), "");
  const Bytes getresp(h.last_answer());
  ASSERT_EQ(getresp.size(), 56u + 72u);

  using satest::judge_sa_answer;
  EXPECT_EQ(judge_sa_answer(table, 0, kernel, true), "");
  EXPECT_EQ(judge_sa_answer(table, 0, single, false), "");
  const auto broken = [&](const Bytes& req, Bytes ans, bool rmpp, auto&& edit) {
    edit(ans);
    return !judge_sa_answer(req, 0, ans, rmpp).empty();
  };
  EXPECT_TRUE(broken(table, kernel, true, [](Bytes& a) { a[15] ^= 1; }));    // TID
  EXPECT_TRUE(broken(table, kernel, true, [](Bytes& a) { a[8] ^= 0x80; }));  // TID, upper half
  EXPECT_TRUE(broken(table, kernel, true, [](Bytes& a) { a[43] = 1; }));     // SM_Key
  EXPECT_TRUE(broken(table, kernel, true, [](Bytes& a) { a[3] = method::kGetResp; }));
  EXPECT_TRUE(broken(table, kernel, true, [](Bytes& a) { a.resize(a.size() + 8); }));
  EXPECT_TRUE(broken(table, kernel, true, [](Bytes& a) { a[45] = 6; }));  // AttributeOffset
  EXPECT_TRUE(broken(table, kernel, true, [](Bytes& a) { a[26] = 0; }));  // no ACTIVE
  EXPECT_TRUE(broken(table, kernel, false, [](Bytes&) {}));  // kernel framing on umad2sim
  EXPECT_TRUE(broken(table, single, false, [](Bytes& a) { a[35] ^= 1; }));  // PayloadLength
  EXPECT_TRUE(broken(table, single, true, [](Bytes&) {}));  // single framing with RMPP
  EXPECT_TRUE(broken(table, kernel, true, [](Bytes& a) { a[17] = 0x11; }));       // attribute
  EXPECT_TRUE(broken(table, kernel, true, [](Bytes& a) { a[2] = 1; }));           // class version
  EXPECT_TRUE(broken(get, getresp, true, [](Bytes& a) { a.resize(56 + 144); }));  // 2 records
  EXPECT_TRUE(broken(get, getresp, true, [](Bytes& a) { a[26] = 1; }));  // RMPP on a GetResp
  EXPECT_TRUE(broken(get, getresp, true, [](Bytes& a) {
    a.resize(56);  // an error must be a whole MAD
    a[4] = 3;
    a[45] = 0;
  }));
  EXPECT_TRUE(broken(get, getresp, true, [](Bytes& a) {
    a.resize(56);  // success without the record
    a[45] = 0;
  }));
  // Answers that must not exist at all.
  Bytes response = get;
  response[3] = method::kGetResp;
  EXPECT_FALSE(judge_sa_answer(response, 0, getresp, true).empty());
  EXPECT_FALSE(judge_sa_answer(get, 110, getresp, true).empty());
  EXPECT_FALSE(judge_sa_answer(Bytes(get.begin(), get.begin() + 40), 0, getresp, true).empty());
}

}  // namespace
}  // namespace ibsm::sa
