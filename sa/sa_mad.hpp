// The Subnet Administration MAD (IBA 15.2.1): a 24-byte common MAD header, the
// 12-byte RMPP header (IBA 13.6.2), SM_Key, AttributeOffset and ComponentMask,
// then the records. 56 header bytes; a single MAD carries 200 bytes of records.
//
// parse_sa_mad() reads untrusted bytes into a header and a view of the data and
// never throws; build_sa_response() frames the answer the way the kernel's RMPP
// (or a single-MAD transport) needs it.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace ibsm::sa {

inline constexpr std::uint8_t kBaseVersion = 1;
inline constexpr std::uint8_t kClassSubnAdm = 0x03;
inline constexpr std::uint8_t kClassVersion = 2;
inline constexpr std::size_t kMadSize = 256;
inline constexpr std::size_t kHeaderSize = 56;
inline constexpr std::size_t kDataSize = kMadSize - kHeaderSize;  // 200

// Methods (IBA 13.4.5 table 109, 15.2.2 table 184).
namespace method {
inline constexpr std::uint8_t kGet = 0x01;
inline constexpr std::uint8_t kSet = 0x02;
inline constexpr std::uint8_t kReport = 0x06;
inline constexpr std::uint8_t kGetTable = 0x12;
inline constexpr std::uint8_t kGetTraceTable = 0x13;
inline constexpr std::uint8_t kGetMulti = 0x14;
inline constexpr std::uint8_t kDelete = 0x15;
inline constexpr std::uint8_t kResponseBit = 0x80;
inline constexpr std::uint8_t kGetResp = 0x81;
inline constexpr std::uint8_t kReportResp = 0x86;
inline constexpr std::uint8_t kGetTableResp = 0x92;
inline constexpr std::uint8_t kGetTraceTableResp = 0x93;
inline constexpr std::uint8_t kGetMultiResp = 0x94;
inline constexpr std::uint8_t kDeleteResp = 0x95;
}  // namespace method
std::string_view method_name(std::uint8_t m);

// SA attributes (IBA 15.2.5 table 186).
namespace attr {
inline constexpr std::uint16_t kClassPortInfo = 0x0001;
inline constexpr std::uint16_t kNotice = 0x0002;
inline constexpr std::uint16_t kInformInfo = 0x0003;
inline constexpr std::uint16_t kNodeRecord = 0x0011;
inline constexpr std::uint16_t kPortInfoRecord = 0x0012;
inline constexpr std::uint16_t kSlToVlTableRecord = 0x0013;
inline constexpr std::uint16_t kSwitchInfoRecord = 0x0014;
inline constexpr std::uint16_t kLftRecord = 0x0015;
inline constexpr std::uint16_t kRftRecord = 0x0016;
inline constexpr std::uint16_t kMftRecord = 0x0017;
inline constexpr std::uint16_t kSmInfoRecord = 0x0018;
inline constexpr std::uint16_t kLinkRecord = 0x0020;
inline constexpr std::uint16_t kGuidInfoRecord = 0x0030;
inline constexpr std::uint16_t kServiceRecord = 0x0031;
inline constexpr std::uint16_t kPKeyTableRecord = 0x0033;
inline constexpr std::uint16_t kPathRecord = 0x0035;
inline constexpr std::uint16_t kVlArbTableRecord = 0x0036;
inline constexpr std::uint16_t kMcMemberRecord = 0x0038;
inline constexpr std::uint16_t kTraceRecord = 0x0039;
inline constexpr std::uint16_t kMultiPathRecord = 0x003A;
inline constexpr std::uint16_t kServiceAssociationRecord = 0x003B;
inline constexpr std::uint16_t kInformInfoRecord = 0x00F3;
}  // namespace attr
std::string_view attr_name(std::uint16_t id);

// MAD status (IBA 13.4.7 table 111; SA class-specific codes in bits 8-15, 15.2.1.2).
namespace status {
inline constexpr std::uint16_t kOk = 0x0000;
inline constexpr std::uint16_t kBadVersion = 0x0004;
inline constexpr std::uint16_t kMethodUnsupported = 0x0008;
inline constexpr std::uint16_t kMethodAttrUnsupported = 0x000C;
inline constexpr std::uint16_t kInvalidField = 0x001C;
inline constexpr std::uint16_t kNoResources = 0x0100;
inline constexpr std::uint16_t kReqInvalid = 0x0200;
inline constexpr std::uint16_t kNoRecords = 0x0300;
inline constexpr std::uint16_t kTooManyRecords = 0x0400;
inline constexpr std::uint16_t kReqInvalidGid = 0x0500;
inline constexpr std::uint16_t kInsufficientComponents = 0x0600;
inline constexpr std::uint16_t kReqDenied = 0x0700;
}  // namespace status

// RMPP header flags (IBA 13.6.2.1).
namespace rmpp {
inline constexpr std::uint8_t kTypeData = 1;
inline constexpr std::uint8_t kTypeAck = 2;
inline constexpr std::uint8_t kTypeStop = 3;
inline constexpr std::uint8_t kTypeAbort = 4;
inline constexpr std::uint8_t kFlagActive = 0x01;
inline constexpr std::uint8_t kFlagFirst = 0x02;
inline constexpr std::uint8_t kFlagLast = 0x04;
}  // namespace rmpp

struct SaHeader {
  std::uint8_t base_version = kBaseVersion;
  std::uint8_t mgmt_class = kClassSubnAdm;
  std::uint8_t class_version = kClassVersion;
  std::uint8_t method = 0;  // R bit included
  std::uint16_t status = 0;
  std::uint64_t tid = 0;
  std::uint16_t attr_id = 0;
  std::uint32_t attr_mod = 0;
  std::uint8_t rmpp_version = 0;
  std::uint8_t rmpp_type = 0;
  std::uint8_t rmpp_resp_time = 0;  // high 5 bits of byte 26
  std::uint8_t rmpp_flags = 0;      // low 3 bits of byte 26
  std::uint8_t rmpp_status = 0;
  std::uint32_t rmpp_segment = 0;
  std::uint32_t rmpp_length = 0;  // PayloadLength / NewWindowLast
  std::uint64_t sm_key = 0;
  std::uint16_t attr_offset = 0;  // record size in 8-byte words
  std::uint64_t comp_mask = 0;

  bool is_response() const { return (method & method::kResponseBit) != 0; }
};

void encode_header(const SaHeader& h, std::span<std::uint8_t> out);  // writes 56 bytes
SaHeader decode_header(std::span<const std::uint8_t> in);            // needs 56 bytes

// A received SA MAD: its header and the record bytes after it.
struct SaMad {
  SaHeader header;
  std::vector<std::uint8_t> data;  // everything after the 56-byte header
};

// Reads a MAD off the wire: at least 56 bytes, base version 1, class 0x03. The
// class version is left for the caller to judge (a bad version gets status 0x04).
Result<SaMad> parse_sa_mad(std::span<const std::uint8_t> bytes);

// How responses leave: the kernel's RMPP takes one buffer of any length, or the
// transport carries single MADs only (ibsim's umad2sim, a kernel refusing RMPP).
enum class Framing : std::uint8_t { kKernelRmpp, kSingleMad };

struct SaResponse {
  std::vector<std::uint8_t> bytes;
  std::size_t records = 0;        // records carried
  std::size_t records_total = 0;  // records found (more than carried when trimmed)
};

// Builds the response to `request`: the request's header with the R bit set on
// `resp_method`, `status`, SM_Key 0, AttributeOffset `record_words` (0 for an
// error or an empty table), then `records` (each record_words*8 bytes).
// GetTableResp/GetMultiResp are RMPP messages: with kKernelRmpp the buffer is
// 56 + n*size bytes with only ACTIVE set (the kernel numbers the segments); with
// kSingleMad the records that fit 200 bytes are kept and the MAD is marked a
// one-segment RMPP message (ACTIVE|FIRST|LAST, DATA, segment 1). Other responses
// are single MADs of 256 bytes with no RMPP header.
SaResponse build_sa_response(const SaHeader& request, std::uint8_t resp_method,
                             std::uint16_t status, std::uint16_t record_words,
                             std::span<const std::uint8_t> records, std::size_t record_count,
                             Framing framing);

}  // namespace ibsm::sa
