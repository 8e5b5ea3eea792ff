// ClassPortInfo (IBA 13.4.8.1) of the SA class, as OpenSM 3.3.23 advertises it
// (osm_sa_class_port_info.c): what the SA supports, how long it may take to
// answer, and that it is not redirected.
#include "mad/transport.hpp"
#include "sa/handlers.hpp"
#include "sa/records/record_util.hpp"

namespace ibsm::sa {

namespace {

// IBA 13.4.8.1 table 114 / 15.2.1.1 CapabilityMask bits.
constexpr std::uint16_t kCapGetSetNotice = 1u << 1;
constexpr std::uint16_t kCapUdMulticast = 1u << 9;
constexpr std::uint16_t kCapMultiPath = 1u << 10;
constexpr std::uint16_t kCapPortInfoCapMaskMatch = 1u << 13;
// CapabilityMask2 bits (IBA 1.3 table 187).
constexpr std::uint32_t kCap2Qos = 1u << 1;
constexpr std::uint32_t kCap2McastTop = 1u << 3;
constexpr std::uint32_t kCap2AliasGuids = 1u << 5;
constexpr std::uint32_t kCap2FullPortInfoRec = 1u << 6;
constexpr std::uint32_t kCap2ExtendedSpeeds = 1u << 7;
constexpr std::uint32_t kCap2McastServiceRecs = 1u << 8;
constexpr std::uint32_t kCap2PortInfoCapMask2Match = 1u << 10;
constexpr std::uint32_t kCap2SendOnlyFullMember = 1u << 12;
constexpr std::uint32_t kCap2LinkWidth2x = 1u << 13;
constexpr std::uint32_t kCap2LinkSpeedHdr = 1u << 15;

// RespTimeValue (IBA 13.4.6.2): 4.096 us * 2^v must cover transaction_timeout.
std::uint8_t resp_time_value(std::uint32_t timeout_ms) {
  std::uint8_t v = 8;
  while (v < 31 && 4.096e-3 * static_cast<double>(1ull << v) < timeout_ms - 0.5)
    ++v;
  return v;
}

}  // namespace

HandlerResult handle_class_port_info(RequestContext& ctx) {
  HandlerResult r;
  r.words = 9;  // 72 bytes
  auto rec = r.add();
  rec[0] = 1;  // BaseVersion
  rec[1] = 2;  // ClassVersion
  std::uint16_t cap = kCapGetSetNotice | kCapPortInfoCapMaskMatch | kCapMultiPath;
  if (!ctx.settings.disable_multicast) cap |= kCapUdMulticast;
  std::uint32_t cap2 = kCap2FullPortInfoRec | kCap2ExtendedSpeeds | kCap2AliasGuids |
                       kCap2McastServiceRecs | kCap2PortInfoCapMask2Match |
                       kCap2SendOnlyFullMember | kCap2LinkWidth2x | kCap2LinkSpeedHdr;
  if (ctx.settings.use_mfttop) cap2 |= kCap2McastTop;
  if (ctx.settings.qos) cap2 |= kCap2Qos;
  put_be(rec, 2, cap, 2);
  // CapabilityMask2 (27 bits) and RespTimeValue (5 bits) share one word.
  put_be(rec, 4, (cap2 << 5) | (resp_time_value(ctx.settings.transaction_timeout_ms) & 0x1f), 4);
  put_be(rec, 32, 1, 4);              // Reserved byte + RedirectQP 1: not redirected
  put_be(rec, 36, mad::kGsiQKey, 4);  // RedirectQ_Key
  put_be(rec, 68, mad::kGsiQKey, 4);  // TrapQ_Key
  return r;
}

}  // namespace ibsm::sa
