// wire/: the SA (sa/'s layout tables) and the agent (agent/sa_mcmember) read and write
// the same bytes. A record built through sa/'s layout, framed by sa/'s response
// builder, is what the agent decodes; the agent's request is what sa/ parses.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "agent/sa_mcmember.hpp"
#include "sa/record_layout.hpp"
#include "sa/sa_mad.hpp"
#include "wire/mad_header.hpp"
#include "wire/sa_header.hpp"
#include "wire/sa_records.hpp"

namespace ibsm {
namespace {

const sa::Field& field(const sa::RecordLayout& l, std::string_view name) {
  for (const sa::Field& f : l.fields)
    if (f.name == name) return f;
  throw std::logic_error("no field " + std::string(name));
}

// The agent's request as sa/ reads it, and sa/'s GetResp carrying `record`.
std::vector<std::uint8_t> answer(std::span<const std::uint8_t> request,
                                 std::span<const std::uint8_t> record, std::uint16_t words) {
  auto q = sa::parse_sa_mad(request);
  EXPECT_TRUE(q.ok());
  return sa::build_sa_response(q->header, sa::method::kGetResp, sa::status::kOk, words, record, 1,
                               sa::Framing::kSingleMad)
      .bytes;
}

TEST(WireRecords, AnMcMemberRecordFromSasLayoutIsWhatTheAgentDecodes) {
  const sa::RecordLayout& l = *sa::find_layout(sa::attr::kMcMemberRecord);
  ASSERT_EQ(l.size, wire::mcmember::kSize);
  const agent::Mgid mgid = agent::ipoib_broadcast_mgid(0x8005);
  const agent::SaMad request = agent::encode_broadcast_group_get(mgid, 0x1234);

  // sa/ sees a Get of MCMemberRecord selecting the MGID the agent wrote.
  auto q = sa::parse_sa_mad(request);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->header.method, wire::method::kGet);
  EXPECT_EQ(q->header.attr_id, sa::attr::kMcMemberRecord);
  EXPECT_EQ(q->header.comp_mask, std::uint64_t{1} << 0);  // bit 0: field 0 of sa/'s layout
  EXPECT_EQ(l.fields[0].name, "MGID");

  std::vector<std::uint8_t> rec(l.padded_size());
  std::copy(mgid.begin(), mgid.end(), rec.begin());
  sa::set_field(rec, field(l, "MTUSelector"), 2);
  sa::set_field(rec, field(l, "MTU"), 4);  // 2048
  sa::set_field(rec, field(l, "RateSelector"), 2);
  sa::set_field(rec, field(l, "Rate"), 16);  // 100 Gb/s
  sa::set_field(rec, field(l, "P_Key"), 0x8005);
  EXPECT_TRUE(sa::matches(l, q->data, rec, q->header.comp_mask));

  const auto bytes = answer(request, rec, l.words());
  EXPECT_EQ(agent::answer_mismatch(bytes, 7, request, 7), nullptr);
  auto g = agent::decode_broadcast_group(bytes, mgid);
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->mtu_bytes, 2048);
  EXPECT_EQ(g->rate_code, 16);
}

TEST(WireRecords, APortInfoRecordFromSasLayoutIsWhatTheAgentDecodes) {
  const sa::RecordLayout& l = *sa::find_layout(sa::attr::kPortInfoRecord);
  ASSERT_EQ(l.size, wire::port_info_record::kSize);
  const agent::SaMad request = agent::encode_port_info_get(0x0017, 99);
  auto q = sa::parse_sa_mad(request);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->header.attr_id, sa::attr::kPortInfoRecord);
  EXPECT_EQ(l.fields[0].name, "EndportLID");
  EXPECT_EQ(sa::get_field(q->data, l.fields[0]), 0x0017u);

  std::vector<std::uint8_t> rec(l.padded_size());
  sa::set_field(rec, field(l, "EndportLID"), 0x0017);
  sa::set_field(rec, field(l, "NeighborMTU"), 5);   // 4096
  sa::set_field(rec, field(l, "MasterSMSL"), 0xF);  // the nibble beside it
  EXPECT_TRUE(sa::matches(l, q->data, rec, q->header.comp_mask));

  auto mtu = agent::decode_port_neighbor_mtu(answer(request, rec, l.words()), 0x0017);
  ASSERT_TRUE(mtu.ok()) << mtu.error().message;
  EXPECT_EQ(*mtu, 4096);
}

// The SA header offsets sa/ encodes with are the ones wire/ names (IBA 15.2.1.1).
TEST(WireRecords, SasHeaderSitsWhereWireSaysItDoes) {
  sa::SaHeader h;
  h.method = wire::method::kGetTableResp;
  h.tid = 0x0102030405060708;
  h.attr_id = sa::attr::kMcMemberRecord;
  h.attr_offset = 7;
  h.comp_mask = 0x8000000000000001;
  std::vector<std::uint8_t> b(wire::sa::kHeaderSize);
  sa::encode_header(h, b);
  EXPECT_EQ(b[wire::kOffMethod], 0x92);
  EXPECT_EQ(b[wire::kOffTid + 7], 0x08);
  EXPECT_EQ(b[wire::kOffAttrId + 1], 0x38);
  EXPECT_EQ(b[wire::sa::kOffAttrOffset + 1], 7);
  EXPECT_EQ(b[wire::sa::kOffComponentMask], 0x80);
  EXPECT_EQ(b[wire::sa::kOffComponentMask + 7], 0x01);
}

}  // namespace
}  // namespace ibsm
