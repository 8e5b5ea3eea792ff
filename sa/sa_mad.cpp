#include "sa/sa_mad.hpp"

#include <algorithm>

#include "sa/errors.hpp"

namespace ibsm::sa {

namespace {

std::uint16_t get16(std::span<const std::uint8_t> b, std::size_t o) {
  return static_cast<std::uint16_t>((b[o] << 8) | b[o + 1]);
}
std::uint32_t get32(std::span<const std::uint8_t> b, std::size_t o) {
  return (std::uint32_t{b[o]} << 24) | (std::uint32_t{b[o + 1]} << 16) |
         (std::uint32_t{b[o + 2]} << 8) | b[o + 3];
}
std::uint64_t get64(std::span<const std::uint8_t> b, std::size_t o) {
  return (std::uint64_t{get32(b, o)} << 32) | get32(b, o + 4);
}
void put16(std::span<std::uint8_t> b, std::size_t o, std::uint16_t v) {
  b[o] = static_cast<std::uint8_t>(v >> 8);
  b[o + 1] = static_cast<std::uint8_t>(v);
}
void put32(std::span<std::uint8_t> b, std::size_t o, std::uint32_t v) {
  for (int i = 0; i < 4; ++i)
    b[o + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (24 - 8 * i));
}
void put64(std::span<std::uint8_t> b, std::size_t o, std::uint64_t v) {
  put32(b, o, static_cast<std::uint32_t>(v >> 32));
  put32(b, o + 4, static_cast<std::uint32_t>(v));
}

}  // namespace

std::string_view method_name(std::uint8_t m) {
  switch (m) {
    case method::kGet:
      return "Get";
    case method::kSet:
      return "Set";
    case method::kReport:
      return "Report";
    case method::kGetTable:
      return "GetTable";
    case method::kGetTraceTable:
      return "GetTraceTable";
    case method::kGetMulti:
      return "GetMulti";
    case method::kDelete:
      return "Delete";
    case method::kGetResp:
      return "GetResp";
    case method::kReportResp:
      return "ReportResp";
    case method::kGetTableResp:
      return "GetTableResp";
    case method::kGetMultiResp:
      return "GetMultiResp";
    case method::kDeleteResp:
      return "DeleteResp";
    default:
      return "Method?";
  }
}

std::string_view attr_name(std::uint16_t id) {
  switch (id) {
    case attr::kClassPortInfo:
      return "ClassPortInfo";
    case attr::kNotice:
      return "Notice";
    case attr::kInformInfo:
      return "InformInfo";
    case attr::kNodeRecord:
      return "NodeRecord";
    case attr::kPortInfoRecord:
      return "PortInfoRecord";
    case attr::kSlToVlTableRecord:
      return "SLtoVLMappingTableRecord";
    case attr::kSwitchInfoRecord:
      return "SwitchInfoRecord";
    case attr::kLftRecord:
      return "LinearForwardingTableRecord";
    case attr::kRftRecord:
      return "RandomForwardingTableRecord";
    case attr::kMftRecord:
      return "MulticastForwardingTableRecord";
    case attr::kSmInfoRecord:
      return "SMInfoRecord";
    case attr::kLinkRecord:
      return "LinkRecord";
    case attr::kGuidInfoRecord:
      return "GuidInfoRecord";
    case attr::kServiceRecord:
      return "ServiceRecord";
    case attr::kPKeyTableRecord:
      return "P_KeyTableRecord";
    case attr::kPathRecord:
      return "PathRecord";
    case attr::kVlArbTableRecord:
      return "VLArbitrationTableRecord";
    case attr::kMcMemberRecord:
      return "MCMemberRecord";
    case attr::kTraceRecord:
      return "TraceRecord";
    case attr::kMultiPathRecord:
      return "MultiPathRecord";
    case attr::kServiceAssociationRecord:
      return "ServiceAssociationRecord";
    case attr::kInformInfoRecord:
      return "InformInfoRecord";
    default:
      return "Attribute?";
  }
}

void encode_header(const SaHeader& h, std::span<std::uint8_t> b) {
  using namespace wire::sa;  // the offsets by name, in the function (unity builds)
  std::fill(b.begin(), b.begin() + kHeaderSize, std::uint8_t{0});
  b[wire::kOffBaseVersion] = h.base_version;
  b[wire::kOffClass] = h.mgmt_class;
  b[wire::kOffClassVersion] = h.class_version;
  b[wire::kOffMethod] = h.method;
  put16(b, wire::kOffStatus, h.status);
  put64(b, wire::kOffTid, h.tid);
  put16(b, wire::kOffAttrId, h.attr_id);
  put32(b, wire::kOffAttrMod, h.attr_mod);
  b[kOffRmppVersion] = h.rmpp_version;
  b[kOffRmppType] = h.rmpp_type;
  b[kOffRmppRespTimeFlags] =
      static_cast<std::uint8_t>((h.rmpp_resp_time << 3) | (h.rmpp_flags & 0x7));
  b[kOffRmppStatus] = h.rmpp_status;
  put32(b, kOffRmppSegment, h.rmpp_segment);
  put32(b, kOffRmppLength, h.rmpp_length);
  put64(b, kOffSmKey, h.sm_key);
  put16(b, kOffAttrOffset, h.attr_offset);
  put64(b, kOffComponentMask, h.comp_mask);
}

SaHeader decode_header(std::span<const std::uint8_t> b) {
  using namespace wire::sa;
  SaHeader h;
  h.base_version = b[wire::kOffBaseVersion];
  h.mgmt_class = b[wire::kOffClass];
  h.class_version = b[wire::kOffClassVersion];
  h.method = b[wire::kOffMethod];
  h.status = get16(b, wire::kOffStatus);
  h.tid = get64(b, wire::kOffTid);
  h.attr_id = get16(b, wire::kOffAttrId);
  h.attr_mod = get32(b, wire::kOffAttrMod);
  h.rmpp_version = b[kOffRmppVersion];
  h.rmpp_type = b[kOffRmppType];
  h.rmpp_resp_time = static_cast<std::uint8_t>(b[kOffRmppRespTimeFlags] >> 3);
  h.rmpp_flags = static_cast<std::uint8_t>(b[kOffRmppRespTimeFlags] & 0x7);
  h.rmpp_status = b[kOffRmppStatus];
  h.rmpp_segment = get32(b, kOffRmppSegment);
  h.rmpp_length = get32(b, kOffRmppLength);
  h.sm_key = get64(b, kOffSmKey);
  h.attr_offset = get16(b, kOffAttrOffset);
  h.comp_mask = get64(b, kOffComponentMask);
  return h;
}

Result<SaMad> parse_sa_mad(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < kHeaderSize) {
    return fail(kErrSaMalformed, "SA MAD of " + std::to_string(bytes.size()) +
                                     " bytes, shorter than its 56-byte header");
  }
  SaMad m;
  m.header = decode_header(bytes);
  if (m.header.base_version != kBaseVersion) {
    return fail(kErrSaMalformed,
                "SA MAD with base version " + std::to_string(m.header.base_version));
  }
  if (m.header.mgmt_class != kClassSubnAdm) {
    return fail(kErrSaMalformed,
                "MAD of class " + std::to_string(m.header.mgmt_class) + " on the SA agent");
  }
  m.data.assign(bytes.begin() + kHeaderSize, bytes.end());
  return m;
}

SaResponse build_sa_response(const SaHeader& request, std::uint8_t resp_method,
                             std::uint16_t status, std::uint16_t record_words,
                             std::span<const std::uint8_t> records, std::size_t record_count,
                             Framing framing) {
  SaResponse out;
  out.records_total = record_count;
  const std::size_t size = std::size_t{record_words} * 8;
  // GetTraceTableResp is a table too (IBA 15.2.2 table 184: sent with RMPP).
  const bool table = resp_method == method::kGetTableResp || resp_method == method::kGetMultiResp ||
                     resp_method == method::kGetTraceTableResp;
  std::size_t n = size == 0 ? 0 : std::min(record_count, records.size() / size);
  if (framing == Framing::kSingleMad || !table) n = std::min(n, size == 0 ? 0 : kDataSize / size);
  out.records = n;

  SaHeader h = request;
  h.method = resp_method;
  h.status = status;
  h.sm_key = 0;  // responses never reveal a key (IBA 15.2.1.1)
  // An error, or a table with nothing in it, has no records to describe.
  h.attr_offset = (n == 0 && (status != 0 || table)) ? 0 : record_words;
  h.rmpp_version = 0;
  h.rmpp_type = 0;
  h.rmpp_resp_time = 0;
  h.rmpp_flags = 0;
  h.rmpp_status = 0;
  h.rmpp_segment = 0;
  h.rmpp_length = 0;
  std::size_t length = kHeaderSize + n * size;
  if (status != 0 && n == 0) length = kMadSize;  // error answers are whole MADs
  if (table) {
    h.rmpp_flags = rmpp::kFlagActive;  // even for one record: clients expect an RMPP message
    if (framing == Framing::kSingleMad) {
      // One self-contained segment: what OpenSM sends where it has no RMPP.
      h.rmpp_version = 1;
      h.rmpp_type = rmpp::kTypeData;
      h.rmpp_flags = rmpp::kFlagActive | rmpp::kFlagFirst | rmpp::kFlagLast;
      h.rmpp_resp_time = 14;
      h.rmpp_segment = 1;
      h.rmpp_length = static_cast<std::uint32_t>(length - 36);  // SA header after RMPP + data
    }
  }
  out.bytes.assign(length, 0);
  encode_header(h, out.bytes);
  std::copy_n(records.begin(), n * size, out.bytes.begin() + kHeaderSize);
  return out;
}

}  // namespace ibsm::sa
