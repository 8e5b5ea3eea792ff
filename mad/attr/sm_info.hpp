// SMInfo (IBA 14.2.5.13): how SMs find and rank each other.
#pragma once

#include "mad/attribute_codec.hpp"
#include "mad/types.hpp"

namespace ibsm::mad {

struct SmInfo {
  static constexpr AttrId kAttrId = AttrId::kSmInfo;
  static constexpr const char* kName = "SMInfo";

  Guid guid = 0;
  std::uint64_t sm_key = 0;
  std::uint32_t act_count = 0;
  std::uint8_t priority = 0;  // 0-15
  SmState state = SmState::kNotActive;

  template <class Self, class Visit>
  static void fields(Self& s, Visit&& v) {
    v(IB_SMINFO_GUID_F, s.guid);
    v(IB_SMINFO_KEY_F, s.sm_key);
    v(IB_SMINFO_ACT_F, s.act_count);
    v(IB_SMINFO_PRIO_F, s.priority);
    v(IB_SMINFO_STATE_F, s.state);
  }
};

// SMInfo Set attribute modifiers (IBA 14.4.1, table 186).
enum class SmControl : std::uint32_t {
  kHandover = 1,
  kAcknowledge = 2,
  kDisable = 3,
  kStandby = 4,
  kDiscover = 5,
};

}  // namespace ibsm::mad
