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
#include "wire/mad_header.hpp"
#include "wire/sa_header.hpp"

namespace ibsm::sa {

// The SA MAD's layout, methods and attribute IDs are wire/'s (wire/mad_header.hpp,
// wire/sa_header.hpp), shared with the agent.
inline constexpr std::uint8_t kBaseVersion = wire::kBaseVersion;
inline constexpr std::uint8_t kClassSubnAdm = wire::mgmt_class::kSubnAdm;
inline constexpr std::uint8_t kClassVersion = wire::sa::kClassVersion;
inline constexpr std::size_t kMadSize = wire::kMadSize;
inline constexpr std::size_t kHeaderSize = wire::sa::kHeaderSize;
inline constexpr std::size_t kDataSize = wire::sa::kDataSize;  // 200

// Methods (IBA 13.4.5 table 109, 15.2.2 table 184).
namespace method = wire::method;
std::string_view method_name(std::uint8_t m);

// SA attributes (IBA 15.2.5 table 186).
namespace attr = wire::sa::attr;
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
