// PortInfo (IBA 14.2.5.6): the per-port attribute the SM reads and programs most.
//
// The extended speeds (LinkSpeedExt*: FDR, EDR, HDR, NDR; LinkSpeedExt*2: XDR) are
// filled in only when the Get carries attribute-modifier bit 31
// (SMSupportsExtendedSpeeds) on some devices; sm/discovery/discovery.cpp asks for them.
// What the speed fields mean, and which combinations make sense: port_speeds.hpp.
#pragma once

#include "mad/attribute_codec.hpp"
#include "mad/types.hpp"

namespace ibsm::mad {

struct PortInfo {
  static constexpr AttrId kAttrId = AttrId::kPortInfo;
  static constexpr const char* kName = "PortInfo";

  std::uint64_t m_key = 0;
  std::uint64_t gid_prefix = 0;
  Lid lid = 0;
  Lid master_sm_lid = 0;
  std::uint32_t capability_mask = 0;
  std::uint16_t diag_code = 0;
  std::uint16_t m_key_lease_period = 0;
  PortNum local_port_num = 0;
  std::uint8_t link_width_enabled = 0;
  std::uint8_t link_width_supported = 0;
  std::uint8_t link_width_active = 0;
  std::uint8_t link_speed_supported = 0;
  PortState port_state = PortState::kNoChange;
  PhysState phys_state = PhysState::kNoChange;
  std::uint8_t link_down_default_state = 0;
  std::uint8_t m_key_protect_bits = 0;
  std::uint8_t lmc = 0;
  std::uint8_t link_speed_active = 0;
  std::uint8_t link_speed_enabled = 0;
  std::uint8_t neighbor_mtu = 0;
  std::uint8_t master_sm_sl = 0;
  std::uint8_t vl_cap = 0;
  std::uint8_t init_type = 0;
  std::uint8_t vl_high_limit = 0;
  std::uint8_t vl_arbitration_high_cap = 0;
  std::uint8_t vl_arbitration_low_cap = 0;
  std::uint8_t init_type_reply = 0;
  std::uint8_t mtu_cap = 0;
  std::uint8_t vl_stall_count = 0;
  std::uint8_t hoq_life = 0;
  std::uint8_t operational_vls = 0;
  bool partition_enforcement_inbound = false;
  bool partition_enforcement_outbound = false;
  bool filter_raw_inbound = false;
  bool filter_raw_outbound = false;
  std::uint16_t m_key_violations = 0;
  std::uint16_t p_key_violations = 0;
  std::uint16_t q_key_violations = 0;
  std::uint8_t guid_cap = 0;
  bool client_reregister = false;
  bool multicast_pkey_trap_suppression = false;
  std::uint8_t subnet_timeout = 0;
  std::uint8_t resp_time_value = 0;
  std::uint8_t local_phy_errors = 0;
  std::uint8_t overrun_errors = 0;
  std::uint16_t max_credit_hint = 0;
  std::uint32_t link_round_trip_latency = 0;
  std::uint16_t capability_mask2 = 0;
  std::uint8_t link_speed_ext_active = 0;
  std::uint8_t link_speed_ext_supported = 0;
  std::uint8_t link_speed_ext_enabled = 0;
  // IBA 1.7 (XDR), in the byte before LinkRoundTripLatency; valid only where
  // CapabilityMask2.IsExtendedSpeeds2Supported. Bit 0 = 212.5 Gb/s per lane (XDR).
  std::uint8_t link_speed_ext_active2 = 0;
  std::uint8_t link_speed_ext_supported2 = 0;
  std::uint8_t link_speed_ext_enabled2 = 0;

  // Where the XDR fields sit: bits 449-455 (IBA numbering), as rdma-core's newer
  // libibmad describes them (IB_PORT_LINK_SPEED_EXT_*_2_F).
  static const LocalField kLinkSpeedExtActive2;
  static const LocalField kLinkSpeedExtSupported2;
  static const LocalField kLinkSpeedExtEnabled2;

  template <class Self, class Visit>
  static void fields(Self& s, Visit&& v) {
    v(IB_PORT_MKEY_F, s.m_key);
    v(IB_PORT_GID_PREFIX_F, s.gid_prefix);
    v(IB_PORT_LID_F, s.lid);
    v(IB_PORT_SMLID_F, s.master_sm_lid);
    v(IB_PORT_CAPMASK_F, s.capability_mask);
    v(IB_PORT_DIAG_F, s.diag_code);
    v(IB_PORT_MKEY_LEASE_F, s.m_key_lease_period);
    v(IB_PORT_LOCAL_PORT_F, s.local_port_num);
    v(IB_PORT_LINK_WIDTH_ENABLED_F, s.link_width_enabled);
    v(IB_PORT_LINK_WIDTH_SUPPORTED_F, s.link_width_supported);
    v(IB_PORT_LINK_WIDTH_ACTIVE_F, s.link_width_active);
    v(IB_PORT_LINK_SPEED_SUPPORTED_F, s.link_speed_supported);
    v(IB_PORT_STATE_F, s.port_state);
    v(IB_PORT_PHYS_STATE_F, s.phys_state);
    v(IB_PORT_LINK_DOWN_DEF_F, s.link_down_default_state);
    v(IB_PORT_MKEY_PROT_BITS_F, s.m_key_protect_bits);
    v(IB_PORT_LMC_F, s.lmc);
    v(IB_PORT_LINK_SPEED_ACTIVE_F, s.link_speed_active);
    v(IB_PORT_LINK_SPEED_ENABLED_F, s.link_speed_enabled);
    v(IB_PORT_NEIGHBOR_MTU_F, s.neighbor_mtu);
    v(IB_PORT_SMSL_F, s.master_sm_sl);
    v(IB_PORT_VL_CAP_F, s.vl_cap);
    v(IB_PORT_INIT_TYPE_F, s.init_type);
    v(IB_PORT_VL_HIGH_LIMIT_F, s.vl_high_limit);
    v(IB_PORT_VL_ARBITRATION_HIGH_CAP_F, s.vl_arbitration_high_cap);
    v(IB_PORT_VL_ARBITRATION_LOW_CAP_F, s.vl_arbitration_low_cap);
    v(IB_PORT_INIT_TYPE_REPLY_F, s.init_type_reply);
    v(IB_PORT_MTU_CAP_F, s.mtu_cap);
    v(IB_PORT_VL_STALL_COUNT_F, s.vl_stall_count);
    v(IB_PORT_HOQ_LIFE_F, s.hoq_life);
    v(IB_PORT_OPER_VLS_F, s.operational_vls);
    v(IB_PORT_PART_EN_INB_F, s.partition_enforcement_inbound);
    v(IB_PORT_PART_EN_OUTB_F, s.partition_enforcement_outbound);
    v(IB_PORT_FILTER_RAW_INB_F, s.filter_raw_inbound);
    v(IB_PORT_FILTER_RAW_OUTB_F, s.filter_raw_outbound);
    v(IB_PORT_MKEY_VIOL_F, s.m_key_violations);
    v(IB_PORT_PKEY_VIOL_F, s.p_key_violations);
    v(IB_PORT_QKEY_VIOL_F, s.q_key_violations);
    v(IB_PORT_GUID_CAP_F, s.guid_cap);
    v(IB_PORT_CLIENT_REREG_F, s.client_reregister);
    v(IB_PORT_MCAST_PKEY_SUPR_ENAB_F, s.multicast_pkey_trap_suppression);
    v(IB_PORT_SUBN_TIMEOUT_F, s.subnet_timeout);
    v(IB_PORT_RESP_TIME_VAL_F, s.resp_time_value);
    v(IB_PORT_LOCAL_PHYS_ERR_F, s.local_phy_errors);
    v(IB_PORT_OVERRUN_ERR_F, s.overrun_errors);
    v(IB_PORT_MAX_CREDIT_HINT_F, s.max_credit_hint);
    v(IB_PORT_LINK_ROUND_TRIP_F, s.link_round_trip_latency);
    v(IB_PORT_CAPMASK2_F, s.capability_mask2);
    v(IB_PORT_LINK_SPEED_EXT_ACTIVE_F, s.link_speed_ext_active);
    v(IB_PORT_LINK_SPEED_EXT_SUPPORTED_F, s.link_speed_ext_supported);
    v(IB_PORT_LINK_SPEED_EXT_ENABLED_F, s.link_speed_ext_enabled);
    v(kLinkSpeedExtActive2, s.link_speed_ext_active2);
    v(kLinkSpeedExtSupported2, s.link_speed_ext_supported2);
    v(kLinkSpeedExtEnabled2, s.link_speed_ext_enabled2);
  }

  // IBA 14.2.5.6: PortState 1-4 in a GetResp (0 only in Sets), PhysState 0-7, LMC 0-7.
  static Status validate(const PortInfo& p);
};

}  // namespace ibsm::mad
