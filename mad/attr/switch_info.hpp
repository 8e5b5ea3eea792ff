// SwitchInfo (IBA 14.2.5.4): forwarding-table capacities and the PortStateChange flag.
#pragma once

#include "mad/attribute_codec.hpp"
#include "mad/types.hpp"

namespace ibsm::mad {

struct SwitchInfo {
  static constexpr AttrId kAttrId = AttrId::kSwitchInfo;
  static constexpr const char* kName = "SwitchInfo";

  std::uint16_t linear_fdb_cap = 0;
  std::uint16_t random_fdb_cap = 0;
  std::uint16_t multicast_fdb_cap = 0;
  std::uint16_t linear_fdb_top = 0;
  std::uint8_t default_port = 0;
  std::uint8_t default_mcast_primary_port = 0;
  std::uint8_t default_mcast_not_primary_port = 0;
  std::uint8_t life_time_value = 0;
  bool port_state_change = false;
  std::uint8_t optimized_sl_to_vl = 0;
  std::uint16_t lids_per_port = 0;
  std::uint16_t partition_enforcement_cap = 0;
  bool inbound_enforcement_cap = false;
  bool outbound_enforcement_cap = false;
  bool filter_raw_inbound_cap = false;
  bool filter_raw_outbound_cap = false;
  bool enhanced_port0 = false;
  std::uint16_t multicast_fdb_top = 0;

  template <class Self, class Visit>
  static void fields(Self& s, Visit&& v) {
    v(IB_SW_LINEAR_FDB_CAP_F, s.linear_fdb_cap);
    v(IB_SW_RANDOM_FDB_CAP_F, s.random_fdb_cap);
    v(IB_SW_MCAST_FDB_CAP_F, s.multicast_fdb_cap);
    v(IB_SW_LINEAR_FDB_TOP_F, s.linear_fdb_top);
    v(IB_SW_DEF_PORT_F, s.default_port);
    v(IB_SW_DEF_MCAST_PRIM_F, s.default_mcast_primary_port);
    v(IB_SW_DEF_MCAST_NOT_PRIM_F, s.default_mcast_not_primary_port);
    v(IB_SW_LIFE_TIME_F, s.life_time_value);
    v(IB_SW_STATE_CHANGE_F, s.port_state_change);
    v(IB_SW_OPT_SLTOVL_MAPPING_F, s.optimized_sl_to_vl);
    v(IB_SW_LIDS_PER_PORT_F, s.lids_per_port);
    v(IB_SW_PARTITION_ENFORCE_CAP_F, s.partition_enforcement_cap);
    v(IB_SW_PARTITION_ENF_INB_F, s.inbound_enforcement_cap);
    v(IB_SW_PARTITION_ENF_OUTB_F, s.outbound_enforcement_cap);
    v(IB_SW_FILTER_RAW_INB_F, s.filter_raw_inbound_cap);
    v(IB_SW_FILTER_RAW_OUTB_F, s.filter_raw_outbound_cap);
    v(IB_SW_ENHANCED_PORT0_F, s.enhanced_port0);
    v(IB_SW_MCAST_FDB_TOP_F, s.multicast_fdb_top);
  }
};

}  // namespace ibsm::mad
