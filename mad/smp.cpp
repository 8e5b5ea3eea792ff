#include "mad/smp.hpp"

#include <cstring>

#include "mad/errors.hpp"

namespace ibsm::mad {

std::optional<DrPath> DrPath::extended(PortNum port) const {
  if (hops_ >= kMaxHops) return std::nullopt;
  DrPath p = *this;
  p.hops_ = static_cast<std::uint8_t>(hops_ + 1);
  p.path_[p.hops_] = port;
  return p;
}

std::string DrPath::to_string() const {
  std::string s = "0";
  for (std::size_t i = 1; i <= hops_; ++i)
    s += "," + std::to_string(path_[i]);
  return s;
}

std::string target_to_string(const SmpTarget& t) {
  if (const auto* p = std::get_if<DrPath>(&t)) return "DR path " + p->to_string();
  return "LID " + std::to_string(std::get<Lid>(t));
}

namespace {
void* raw(Smp::Bytes& b) {
  return b.data();
}
void* raw(const Smp::Bytes& b) {
  return const_cast<std::uint8_t*>(b.data());
}
}  // namespace

Smp Smp::request(Method method, AttrId attr, std::uint32_t attr_mod, const SmpTarget& target,
                 std::uint32_t tid, std::uint64_t m_key) {
  Smp s;
  auto* b = raw(s.bytes_);
  const bool dr = std::holds_alternative<DrPath>(target);
  mad_set_field(b, 0, IB_MAD_BASEVER_F, 1);
  mad_set_field(b, 0, IB_MAD_MGMTCLASS_F, dr ? kClassSmiDirected : kClassSmiLid);
  mad_set_field(b, 0, IB_MAD_CLASSVER_F, 1);
  // Byte 3 is R (bit 7) and Method (bits 0-6); libibmad's IB_MAD_METHOD_F is the 7-bit
  // part only, so the whole byte is written to keep the R bit of GetResp (0x81).
  s.bytes_[3] = static_cast<std::uint8_t>(method);
  // The kernel (hi_tid) and umad2sim (agent id) own TID bits 32-63.
  mad_set_field64(b, 0, IB_MAD_TRID_F, tid);
  mad_set_field(b, 0, IB_MAD_ATTRID_F, static_cast<std::uint32_t>(attr));
  mad_set_field(b, 0, IB_MAD_ATTRMOD_F, attr_mod);
  mad_set_field64(b, 0, IB_MAD_MKEY_F, m_key);
  if (dr) {
    const auto& path = std::get<DrPath>(target);
    // IBA 14.2.2.2: the SM sends with HopPointer 0, D clear, and permissive
    // DrSLID/DrDLID so the whole route is directed.
    mad_set_field(b, 0, IB_DRSMP_HOPCNT_F, static_cast<std::uint32_t>(path.hops()));
    mad_set_field(b, 0, IB_DRSMP_HOPPTR_F, 0);
    mad_set_field(b, 0, IB_DRSMP_DRSLID_F, kPermissiveLid);
    mad_set_field(b, 0, IB_DRSMP_DRDLID_F, kPermissiveLid);
    std::memcpy(s.bytes_.data() + 128, path.initial_path().data(), 64);
  }
  return s;
}

Result<Smp> Smp::parse(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < kMadSize) {
    return fail(kErrMalformedMad, "SMP of " + std::to_string(bytes.size()) + " bytes");
  }
  Smp s;
  std::memcpy(s.bytes_.data(), bytes.data(), kMadSize);
  auto* b = raw(s.bytes_);
  const auto base = mad_get_field(b, 0, IB_MAD_BASEVER_F);
  const auto cls = mad_get_field(b, 0, IB_MAD_MGMTCLASS_F);
  const auto ver = mad_get_field(b, 0, IB_MAD_CLASSVER_F);
  if (base != 1 || ver != 1 || (cls != kClassSmiLid && cls != kClassSmiDirected)) {
    return fail(kErrMalformedMad, "not an SMP (base version " + std::to_string(base) + ", class " +
                                      std::to_string(cls) + ", class version " +
                                      std::to_string(ver) + ")");
  }
  return s;
}

Smp Smp::response(ConstPayload data, Method method) const {
  Smp r = *this;
  auto* b = raw(r.bytes_);
  r.bytes_[3] = static_cast<std::uint8_t>(method);  // R bit and method (see request())
  if (directed()) {
    mad_set_field(b, 0, IB_DRSMP_STATUS_F, 0);
    mad_set_field(b, 0, IB_DRSMP_DIRECTION_F, 1);
  } else {
    mad_set_field(b, 0, IB_MAD_STATUS_F, 0);
  }
  std::memcpy(r.bytes_.data() + kSmpDataOffset, data.data(), kSmpDataSize);
  return r;
}

Method Smp::method() const {
  return static_cast<Method>(bytes_[3]);  // with the R bit: GetResp reads as 0x81
}
bool Smp::is_response() const {
  return mad_get_field(raw(bytes_), 0, IB_MAD_RESPONSE_F) != 0;
}
bool Smp::directed() const {
  return mad_get_field(raw(bytes_), 0, IB_MAD_MGMTCLASS_F) == kClassSmiDirected;
}
std::uint16_t Smp::status() const {
  return static_cast<std::uint16_t>(
      mad_get_field(raw(bytes_), 0, directed() ? IB_DRSMP_STATUS_F : IB_MAD_STATUS_F));
}
void Smp::set_status(std::uint16_t status) {
  mad_set_field(raw(bytes_), 0, directed() ? IB_DRSMP_STATUS_F : IB_MAD_STATUS_F, status);
}
std::uint64_t Smp::tid() const {
  return mad_get_field64(raw(bytes_), 0, IB_MAD_TRID_F);
}
AttrId Smp::attr_id() const {
  return static_cast<AttrId>(mad_get_field(raw(bytes_), 0, IB_MAD_ATTRID_F));
}
std::uint32_t Smp::attr_mod() const {
  return mad_get_field(raw(bytes_), 0, IB_MAD_ATTRMOD_F);
}
std::uint8_t Smp::hop_count() const {
  return static_cast<std::uint8_t>(mad_get_field(raw(bytes_), 0, IB_DRSMP_HOPCNT_F));
}
std::uint64_t Smp::m_key() const {
  return mad_get_field64(raw(bytes_), 0, IB_MAD_MKEY_F);
}

}  // namespace ibsm::mad
