// The Performance Management attributes the PerfMgr reads (IBA vol. 1, 16.1.3-16.1.4):
// ClassPortInfo, PortCounters and PortCountersExtended, each described once (see
// wire_layout.hpp), and the PerfMgt MAD around them (header 24 bytes, 40 reserved,
// 192 bytes of data: IBA 16.1.1).
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "common/result.hpp"
#include "mad/types.hpp"
#include "perfmgr/wire_layout.hpp"
#include "wire/mad_header.hpp"

namespace ibsm::perfmgr {

inline constexpr std::uint8_t kClassPerfMgt = mad::kClassPerfMgt;
inline constexpr std::uint8_t kPerfMgtClassVersion = 1;
inline constexpr std::size_t kMadSize = wire::kMadSize;
inline constexpr std::size_t kPmDataOffset = 64;  // after the header and 40 reserved bytes
inline constexpr std::size_t kPmDataSize = kMadSize - kPmDataOffset;

enum class PmAttr : std::uint16_t {
  kClassPortInfo = 0x0001,
  kPortCounters = 0x0012,
  kPortCountersExtended = 0x001D,
};

// Methods (IBA 13.4.5): wire/mad_header.hpp's, by the names the PerfMgr uses.
inline constexpr std::uint8_t kMethodGet = wire::method::kGet;
inline constexpr std::uint8_t kMethodSet = wire::method::kSet;
inline constexpr std::uint8_t kMethodGetResp = wire::method::kGetResp;

// MAD status bits (IBA 13.4.7, table 110).
inline constexpr std::uint16_t kStatusBusy = 0x0001;
inline constexpr std::uint16_t kStatusRedirect = 0x0002;

// ClassPortInfo.CapabilityMask bits of the PerfMgt class (IBA 16.1.3.1, table 502).
inline constexpr std::uint16_t kCapAllPortSelect = 1u << 8;
inline constexpr std::uint16_t kCapExtendedWidth = 1u << 9;         // PortCountersExtended, IETF
inline constexpr std::uint16_t kCapExtendedWidthNoIetf = 1u << 10;  // the first four only
inline constexpr std::uint16_t kCapXmitWait = 1u << 12;

// ClassPortInfo (IBA 13.4.8.1).
struct ClassPortInfo {
  static constexpr const char* kName = "ClassPortInfo";
  static constexpr std::size_t kBytes = 72;
  std::uint64_t base_version = 0, class_version = 0, capability_mask = 0, capability_mask2 = 0,
                resp_time_value = 0, redirect_gid_prefix = 0, redirect_gid_guid = 0,
                redirect_tc = 0, redirect_sl = 0, redirect_fl = 0, redirect_lid = 0,
                redirect_pkey = 0, redirect_qp = 0, redirect_qkey = 0, trap_gid_prefix = 0,
                trap_gid_guid = 0, trap_tc = 0, trap_sl = 0, trap_fl = 0, trap_lid = 0,
                trap_pkey = 0, trap_hl = 0, trap_qp = 0, trap_qkey = 0;
  static constexpr WireField<ClassPortInfo> kFields[] = {
      {"BaseVersion", 0, 8, &ClassPortInfo::base_version},
      {"ClassVersion", 8, 8, &ClassPortInfo::class_version},
      {"CapabilityMask", 16, 16, &ClassPortInfo::capability_mask},
      {"CapabilityMask2", 32, 27, &ClassPortInfo::capability_mask2},
      {"RespTimeValue", 59, 5, &ClassPortInfo::resp_time_value},
      {"RedirectGID.prefix", 64, 64, &ClassPortInfo::redirect_gid_prefix},
      {"RedirectGID.guid", 128, 64, &ClassPortInfo::redirect_gid_guid},
      {"RedirectTC", 192, 8, &ClassPortInfo::redirect_tc},
      {"RedirectSL", 200, 4, &ClassPortInfo::redirect_sl},
      {"RedirectFL", 204, 20, &ClassPortInfo::redirect_fl},
      {"RedirectLID", 224, 16, &ClassPortInfo::redirect_lid},
      {"RedirectP_Key", 240, 16, &ClassPortInfo::redirect_pkey},
      {"RedirectQP", 264, 24, &ClassPortInfo::redirect_qp},
      {"RedirectQ_Key", 288, 32, &ClassPortInfo::redirect_qkey},
      {"TrapGID.prefix", 320, 64, &ClassPortInfo::trap_gid_prefix},
      {"TrapGID.guid", 384, 64, &ClassPortInfo::trap_gid_guid},
      {"TrapTC", 448, 8, &ClassPortInfo::trap_tc},
      {"TrapSL", 456, 4, &ClassPortInfo::trap_sl},
      {"TrapFL", 460, 20, &ClassPortInfo::trap_fl},
      {"TrapLID", 480, 16, &ClassPortInfo::trap_lid},
      {"TrapP_Key", 496, 16, &ClassPortInfo::trap_pkey},
      {"TrapHL", 512, 8, &ClassPortInfo::trap_hl},
      {"TrapQP", 520, 24, &ClassPortInfo::trap_qp},
      {"TrapQ_Key", 544, 32, &ClassPortInfo::trap_qkey},
  };
};
static_assert(layout_is_sound(ClassPortInfo::kFields, ClassPortInfo::kBytes));
static_assert(ClassPortInfo::kFields[10].bit == 224 && ClassPortInfo::kFields[12].bit == 264);

// PortCounters (IBA 16.1.3.5): 32-bit data counters, small error counters.
struct PortCounters {
  static constexpr const char* kName = "PortCounters";
  static constexpr std::size_t kBytes = 44;
  std::uint64_t port_select = 0, counter_select = 0, symbol_error_counter = 0,
                link_error_recovery_counter = 0, link_downed_counter = 0, port_rcv_errors = 0,
                port_rcv_remote_physical_errors = 0, port_rcv_switch_relay_errors = 0,
                port_xmit_discards = 0, port_xmit_constraint_errors = 0,
                port_rcv_constraint_errors = 0, counter_select2 = 0,
                local_link_integrity_errors = 0, excessive_buffer_overrun_errors = 0,
                qp1_dropped = 0, vl15_dropped = 0, port_xmit_data = 0, port_rcv_data = 0,
                port_xmit_pkts = 0, port_rcv_pkts = 0, port_xmit_wait = 0;
  static constexpr WireField<PortCounters> kFields[] = {
      {"PortSelect", 8, 8, &PortCounters::port_select},
      {"CounterSelect", 16, 16, &PortCounters::counter_select},
      {"SymbolErrorCounter", 32, 16, &PortCounters::symbol_error_counter},
      {"LinkErrorRecoveryCounter", 48, 8, &PortCounters::link_error_recovery_counter},
      {"LinkDownedCounter", 56, 8, &PortCounters::link_downed_counter},
      {"PortRcvErrors", 64, 16, &PortCounters::port_rcv_errors},
      {"PortRcvRemotePhysicalErrors", 80, 16, &PortCounters::port_rcv_remote_physical_errors},
      {"PortRcvSwitchRelayErrors", 96, 16, &PortCounters::port_rcv_switch_relay_errors},
      {"PortXmitDiscards", 112, 16, &PortCounters::port_xmit_discards},
      {"PortXmitConstraintErrors", 128, 8, &PortCounters::port_xmit_constraint_errors},
      {"PortRcvConstraintErrors", 136, 8, &PortCounters::port_rcv_constraint_errors},
      {"CounterSelect2", 144, 8, &PortCounters::counter_select2},
      {"LocalLinkIntegrityErrors", 152, 4, &PortCounters::local_link_integrity_errors},
      {"ExcessiveBufferOverrunErrors", 156, 4, &PortCounters::excessive_buffer_overrun_errors},
      {"QP1Dropped", 160, 16, &PortCounters::qp1_dropped},
      {"VL15Dropped", 176, 16, &PortCounters::vl15_dropped},
      {"PortXmitData", 192, 32, &PortCounters::port_xmit_data},
      {"PortRcvData", 224, 32, &PortCounters::port_rcv_data},
      {"PortXmitPkts", 256, 32, &PortCounters::port_xmit_pkts},
      {"PortRcvPkts", 288, 32, &PortCounters::port_rcv_pkts},
      {"PortXmitWait", 320, 32, &PortCounters::port_xmit_wait},
  };
};
static_assert(layout_is_sound(PortCounters::kFields, PortCounters::kBytes));
static_assert(PortCounters::kFields[16].bit == 192 && PortCounters::kFields[20].bit == 320);

// PortCountersExtended (IBA 16.1.4.11): 64-bit data counters.
struct PortCountersExtended {
  static constexpr const char* kName = "PortCountersExtended";
  static constexpr std::size_t kBytes = 72;
  std::uint64_t port_select = 0, counter_select = 0, port_xmit_data = 0, port_rcv_data = 0,
                port_xmit_pkts = 0, port_rcv_pkts = 0, port_unicast_xmit_pkts = 0,
                port_unicast_rcv_pkts = 0, port_multicast_xmit_pkts = 0,
                port_multicast_rcv_pkts = 0;
  static constexpr WireField<PortCountersExtended> kFields[] = {
      {"PortSelect", 8, 8, &PortCountersExtended::port_select},
      {"CounterSelect", 16, 16, &PortCountersExtended::counter_select},
      {"PortXmitData", 64, 64, &PortCountersExtended::port_xmit_data},
      {"PortRcvData", 128, 64, &PortCountersExtended::port_rcv_data},
      {"PortXmitPkts", 192, 64, &PortCountersExtended::port_xmit_pkts},
      {"PortRcvPkts", 256, 64, &PortCountersExtended::port_rcv_pkts},
      {"PortUnicastXmitPkts", 320, 64, &PortCountersExtended::port_unicast_xmit_pkts},
      {"PortUnicastRcvPkts", 384, 64, &PortCountersExtended::port_unicast_rcv_pkts},
      {"PortMulticastXmitPkts", 448, 64, &PortCountersExtended::port_multicast_xmit_pkts},
      {"PortMulticastRcvPkts", 512, 64, &PortCountersExtended::port_multicast_rcv_pkts},
  };
};
static_assert(layout_is_sound(PortCountersExtended::kFields, PortCountersExtended::kBytes));
static_assert(PortCountersExtended::kFields[2].bit == 64);

// The header fields of a PerfMgt MAD the PerfMgr reads or writes (IBA 13.4.3).
struct PmHeader {
  std::uint8_t base_version = 1;
  std::uint8_t mgmt_class = kClassPerfMgt;
  std::uint8_t class_version = kPerfMgtClassVersion;
  std::uint8_t method = kMethodGet;
  std::uint16_t status = 0;
  std::uint64_t tid = 0;
  std::uint16_t attr_id = 0;
  std::uint32_t attr_mod = 0;
};

// A PerfMgt request: the header and the attribute's data at offset 64.
std::array<std::uint8_t, kMadSize> build_pm_mad(const PmHeader& h,
                                                std::span<const std::uint8_t> data = {});

// A PerfMgt answer off the wire: the header and a view of its 192 data bytes.
struct PmAnswer {
  PmHeader header;
  std::span<const std::uint8_t> data;  // kPmDataSize bytes, inside the caller's buffer
};
// Checks the frame (exactly one MAD of class 0x04 version 1, base version 1, a
// GetResp): a truncated or oversized answer is an error, never read past.
Result<PmAnswer> parse_pm_answer(std::span<const std::uint8_t> mad);

}  // namespace ibsm::perfmgr
