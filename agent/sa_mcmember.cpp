#include "agent/sa_mcmember.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>

#include "agent/errors.hpp"
#include "wire/mad_header.hpp"
#include "wire/sa_header.hpp"
#include "wire/sa_records.hpp"

namespace ibsm::agent {
namespace {

// The MAD common header (IBA 13.4.3), the SA header (IBA 15.2.1.1) and the two records
// the agent reads (IBA 15.2.5.17, 15.2.5.3) come from wire/, as sa/'s layouts do. TID:
// the low half is ours (bytes 12..15).
using wire::kOffAttrId, wire::kOffAttrMod, wire::kOffBaseVersion, wire::kOffClass,
    wire::kOffClassVersion, wire::kOffMethod, wire::kOffStatus, wire::kOffTid;
constexpr std::size_t kOffComponentMask = wire::sa::kOffComponentMask;
constexpr std::size_t kOffRecord = wire::sa::kHeaderSize;
namespace mcm = wire::mcmember;
namespace pir = wire::port_info_record;

std::uint16_t get16(std::span<const std::uint8_t> b, std::size_t off) {
  return static_cast<std::uint16_t>(b[off] << 8 | b[off + 1]);
}

std::uint32_t get32(std::span<const std::uint8_t> b, std::size_t off) {
  return static_cast<std::uint32_t>(b[off]) << 24 | static_cast<std::uint32_t>(b[off + 1]) << 16 |
         static_cast<std::uint32_t>(b[off + 2]) << 8 | b[off + 3];
}

void put(SaMad& b, std::size_t off, std::uint64_t v, std::size_t bytes) {
  for (std::size_t i = 0; i < bytes; ++i)
    b[off + i] = static_cast<std::uint8_t>(v >> (8 * (bytes - 1 - i)));
}

std::string hex16(std::uint16_t v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%04x", v);
  return buf;
}

}  // namespace

Mgid ipoib_broadcast_mgid(std::uint16_t pkey) {
  const std::uint16_t full = pkey | 0x8000;
  return Mgid{0xff,
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
}

std::string format_mgid(const Mgid& mgid) {
  std::array<std::uint16_t, 8> w{};
  for (std::size_t i = 0; i < 8; ++i)
    w[i] = static_cast<std::uint16_t>(mgid[2 * i] << 8 | mgid[2 * i + 1]);
  // The longest run of two or more zero words becomes "::" (the first, on a tie).
  std::size_t best = 8, best_len = 0;
  for (std::size_t i = 0; i < 8;) {
    std::size_t j = i;
    while (j < 8 && w[j] == 0)
      ++j;
    if (j - i > best_len && j - i >= 2) best = i, best_len = j - i;
    i = j == i ? i + 1 : j;
  }
  std::string s;
  char buf[8];
  for (std::size_t i = 0; i < 8; ++i) {
    if (i == best) {
      s += "::";
      i += best_len - 1;
      continue;
    }
    if (!s.empty() && s.back() != ':') s += ':';
    std::snprintf(buf, sizeof buf, "%x", w[i]);
    s += buf;
  }
  return s;
}

int ib_mtu_bytes(int code) {
  return code >= 1 && code <= 5 ? 128 << code : 0;
}

double ib_rate_gbps(int code) {
  // IBA 15.2.5.16 (PathRecord Rate); OpenSM's IB_PATH_RECORD_RATE_*.
  static constexpr double kGbps[] = {0,   0,   2.5, 10,  30,  5,   20, 40, 60,  80,  120, 14,  56,
                                     112, 168, 25,  100, 200, 300, 28, 50, 400, 600, 800, 1200};
  return code >= 0 && code < static_cast<int>(std::size(kGbps)) ? kGbps[code] : 0;
}

namespace {

// A SubnAdmGet of `attr` with one component mask (IBA 15.2.1: MAD and SA headers); the
// caller fills the record.
SaMad sa_get(std::uint16_t attr, std::uint64_t mask, std::uint32_t tid) {
  SaMad b{};
  b[kOffBaseVersion] = wire::kBaseVersion;
  b[kOffClass] = kClassSubnAdm;
  b[kOffClassVersion] = kSaClassVersion;
  b[kOffMethod] = wire::method::kGet;
  put(b, kOffTid, tid, 8);
  put(b, kOffAttrId, attr, 2);
  put(b, kOffComponentMask, mask, 8);
  return b;
}

}  // namespace

SaMad encode_broadcast_group_get(const Mgid& mgid, std::uint32_t tid) {
  SaMad b = sa_get(wire::sa::attr::kMcMemberRecord, mcm::kMaskMgid, tid);
  std::copy(mgid.begin(), mgid.end(), b.begin() + kOffRecord + mcm::kMgid);
  return b;
}

bool answers_request(std::span<const std::uint8_t> mad, std::uint32_t tid) {
  return mad.size() >= kOffRecord && mad[kOffClass] == kClassSubnAdm &&
         (mad[kOffMethod] & wire::method::kResponseBit) != 0 && get32(mad, kOffTid + 4) == tid;
}

const char* answer_mismatch(std::span<const std::uint8_t> answer, std::uint16_t from_lid,
                            std::span<const std::uint8_t> request, std::uint16_t to_lid) {
  if (answer.size() < kOffRecord || request.size() < kOffRecord) return "short MAD";
  if (answer[kOffClass] != request[kOffClass]) return "another management class";
  if (answer[kOffMethod] != (request[kOffMethod] | wire::method::kResponseBit))
    return "not a response";
  if (get32(answer, kOffTid + 4) != get32(request, kOffTid + 4)) return "another TID";
  if (get16(answer, kOffAttrId) != get16(request, kOffAttrId)) return "another attribute ID";
  if (get32(answer, kOffAttrMod) != get32(request, kOffAttrMod))
    return "another attribute modifier";
  if (from_lid != to_lid) return "from another LID than the one asked";
  return nullptr;
}

std::string describe_sa_status(std::uint16_t status) {
  // Class-specific codes in bits 8..15 (IBA table 186), common ones in bits 0..4 (table 111).
  static const char* const sa_codes[] = {
      "",
      "no resources",
      "request invalid",
      "no records: the SA has no such group (no ipoib partition for this P_Key, or the group "
      "is not created yet)",
      "too many records",
      "invalid GID",
      "insufficient components",
      "request denied"};
  static const char* const common_codes[] = {"",
                                             "bad base or class version",
                                             "method not supported",
                                             "method/attribute combination not supported",
                                             "",
                                             "",
                                             "",
                                             "invalid attribute or modifier value"};
  std::string what;
  const unsigned sa = (status >> 8) & 0x7f;
  const unsigned common = (status >> 2) & 0x7;
  if (sa != 0) what = sa < 8 ? sa_codes[sa] : "SA status " + std::to_string(sa);
  if (common != 0 && *common_codes[common])
    what += (what.empty() ? "" : ", ") + std::string(common_codes[common]);
  if (status & 0x1) what += (what.empty() ? "" : ", ") + std::string("busy");
  if (status & 0x2) what += (what.empty() ? "" : ", ") + std::string("redirect");
  return hex16(status) + (what.empty() ? "" : " (" + what + ")");
}

namespace {

// The checks every GetResp passes: size, header, status. `what` names the question.
Status check_get_resp(std::span<const std::uint8_t> mad, std::uint16_t attr,
                      std::size_t record_size, const std::string& what, const char* attr_name) {
  if (mad.size() < kOffRecord + record_size)
    return fail(kGroupMtuRejected, what + ": SA answer of " + std::to_string(mad.size()) +
                                       " bytes, too short for a " + attr_name);
  if (mad[kOffBaseVersion] != wire::kBaseVersion || mad[kOffClass] != kClassSubnAdm ||
      mad[kOffClassVersion] != kSaClassVersion || mad[kOffMethod] != wire::method::kGetResp ||
      get16(mad, kOffAttrId) != attr)
    return fail(kGroupMtuRejected, what + ": the answer is not an SA GetResp of " + attr_name +
                                       " (class " + hex16(mad[kOffClass]) + ", method " +
                                       hex16(mad[kOffMethod]) + ", attribute " +
                                       hex16(get16(mad, kOffAttrId)) + ")");
  if (const std::uint16_t status = get16(mad, kOffStatus); status != 0)
    return fail(kGroupMtuRejected, what + ": SA status " + describe_sa_status(status));
  return {};
}

}  // namespace

Result<BroadcastGroup> decode_broadcast_group(std::span<const std::uint8_t> mad, const Mgid& mgid) {
  const std::string group = "broadcast group " + format_mgid(mgid);
  if (auto s =
          check_get_resp(mad, wire::sa::attr::kMcMemberRecord, mcm::kSize, group, "MCMemberRecord");
      !s)
    return fail(s.error());
  const auto rec = mad.subspan(kOffRecord, mcm::kSize);
  if (!std::equal(mgid.begin(), mgid.end(), rec.begin() + mcm::kMgid))
    return fail(kGroupMtuRejected, group + ": the SA answered with another group's record");
  const int code = rec[mcm::kMtu] & mcm::kValueMask;
  const int bytes = ib_mtu_bytes(code);
  if (bytes == 0)
    return fail(kGroupMtuRejected,
                group + ": the record carries MTU code " + std::to_string(code) + " (valid: 1..5)");
  const int rate = rec[mcm::kRate] & mcm::kValueMask;
  if (ib_rate_gbps(rate) == 0)
    return fail(kGroupMtuRejected, group + ": the record carries rate code " +
                                       std::to_string(rate) + " (valid: 2..24)");
  return BroadcastGroup{bytes, rate};
}

Result<int> decode_broadcast_group_mtu(std::span<const std::uint8_t> mad, const Mgid& mgid) {
  auto g = decode_broadcast_group(mad, mgid);
  if (!g) return fail(g.error());
  return g->mtu_bytes;
}

SaMad encode_port_info_get(std::uint16_t lid, std::uint32_t tid) {
  SaMad b = sa_get(wire::sa::attr::kPortInfoRecord, pir::kMaskEndportLid, tid);
  put(b, kOffRecord + pir::kEndportLid, lid, 2);
  return b;
}

Result<int> decode_port_neighbor_mtu(std::span<const std::uint8_t> mad, std::uint16_t lid) {
  const std::string what = "PortInfoRecord of LID " + std::to_string(lid);
  if (auto s =
          check_get_resp(mad, wire::sa::attr::kPortInfoRecord, pir::kSize, what, "PortInfoRecord");
      !s)
    return fail(s.error());
  const auto rec = mad.subspan(kOffRecord, pir::kSize);
  if (get16(rec, pir::kEndportLid) != lid)
    return fail(kGroupMtuRejected,
                what + ": the SA answered for LID " + std::to_string(get16(rec, pir::kEndportLid)));
  const int code = rec[pir::kNeighborMtu] >> 4;
  const int bytes = ib_mtu_bytes(code);
  if (bytes == 0)
    return fail(kGroupMtuRejected,
                what + ": NeighborMTU code " + std::to_string(code) + " (valid: 1..5)");
  return bytes;
}

}  // namespace ibsm::agent
