#include "perfmgr/attributes.hpp"

#include <algorithm>
#include <string>

namespace ibsm::perfmgr {

namespace {

void put16(std::uint8_t* p, std::uint16_t v) {
  p[0] = static_cast<std::uint8_t>(v >> 8);
  p[1] = static_cast<std::uint8_t>(v);
}
void put32(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i)
    p[i] = static_cast<std::uint8_t>(v >> (24 - 8 * i));
}
std::uint64_t get_be(const std::uint8_t* p, int n) {
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i)
    v = (v << 8) | p[i];
  return v;
}

}  // namespace

std::array<std::uint8_t, kMadSize> build_pm_mad(const PmHeader& h,
                                                std::span<const std::uint8_t> data) {
  std::array<std::uint8_t, kMadSize> m{};
  m[wire::kOffBaseVersion] = h.base_version;
  m[wire::kOffClass] = h.mgmt_class;
  m[wire::kOffClassVersion] = h.class_version;
  m[wire::kOffMethod] = h.method;
  put16(&m[wire::kOffStatus], h.status);
  put32(&m[wire::kOffTid], static_cast<std::uint32_t>(h.tid >> 32));
  put32(&m[wire::kOffTid + 4], static_cast<std::uint32_t>(h.tid));
  put16(&m[wire::kOffAttrId], h.attr_id);
  put32(&m[wire::kOffAttrMod], h.attr_mod);
  std::copy_n(data.begin(), std::min(data.size(), kPmDataSize), m.begin() + kPmDataOffset);
  return m;
}

Result<PmAnswer> parse_pm_answer(std::span<const std::uint8_t> mad) {
  if (mad.size() != kMadSize) {
    return fail(kErrPmMalformed, std::string(mad.size() < kMadSize ? "truncated" : "oversized") +
                                     " PerfMgt answer of " + std::to_string(mad.size()) +
                                     " bytes (one MAD is 256)");
  }
  PmAnswer a;
  a.header.base_version = mad[wire::kOffBaseVersion];
  a.header.mgmt_class = mad[wire::kOffClass];
  a.header.class_version = mad[wire::kOffClassVersion];
  a.header.method = mad[wire::kOffMethod];
  a.header.status = static_cast<std::uint16_t>(get_be(&mad[wire::kOffStatus], 2));
  a.header.tid = get_be(&mad[wire::kOffTid], 8);
  a.header.attr_id = static_cast<std::uint16_t>(get_be(&mad[wire::kOffAttrId], 2));
  a.header.attr_mod = static_cast<std::uint32_t>(get_be(&mad[wire::kOffAttrMod], 4));
  if (a.header.base_version != wire::kBaseVersion || a.header.mgmt_class != kClassPerfMgt ||
      a.header.class_version != kPerfMgtClassVersion) {
    return fail(kErrPmMalformed, "not a PerfMgt class 0x04 version 1 MAD (base " +
                                     std::to_string(a.header.base_version) + ", class " +
                                     std::to_string(a.header.mgmt_class) + ", version " +
                                     std::to_string(a.header.class_version) + ")");
  }
  if (a.header.method != kMethodGetResp) {
    return fail(kErrPmMalformed,
                "PerfMgt method " + std::to_string(a.header.method) + " is not a GetResp");
  }
  a.data = mad.subspan(kPmDataOffset, kPmDataSize);
  return a;
}

}  // namespace ibsm::perfmgr
