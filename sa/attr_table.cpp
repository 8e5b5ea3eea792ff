// Which attributes the SA serves and with which methods: OpenSM 3.3.23's set
// (osm_sa_mad_ctrl.c dispatch, the handlers' method checks).
#include <array>

#include "sa/handlers.hpp"

namespace ibsm::sa {

namespace {

constexpr std::uint32_t method_bit(std::uint8_t m) {
  return 1u << m;
}
constexpr std::uint32_t kGet = method_bit(method::kGet);
constexpr std::uint32_t kSet = method_bit(method::kSet);
constexpr std::uint32_t kTable = method_bit(method::kGetTable);
constexpr std::uint32_t kDelete = method_bit(method::kDelete);
constexpr std::uint32_t kMulti = method_bit(method::kGetMulti);
constexpr std::uint32_t kTrace = method_bit(method::kGetTraceTable);

constexpr std::array kTableOfAttrs = {
    AttrEntry{attr::kClassPortInfo, kGet, handle_class_port_info},
    AttrEntry{attr::kInformInfo, kSet, handle_inform_info},
    AttrEntry{attr::kNodeRecord, kGet | kTable, handle_node_record},
    AttrEntry{attr::kPortInfoRecord, kGet | kTable, handle_port_info_record},
    AttrEntry{attr::kSlToVlTableRecord, kGet | kTable, handle_sl2vl_record},
    AttrEntry{attr::kSwitchInfoRecord, kGet | kTable, handle_switch_info_record},
    AttrEntry{attr::kLftRecord, kGet | kTable, handle_lft_record},
    AttrEntry{attr::kMftRecord, kGet | kTable, handle_mft_record},
    AttrEntry{attr::kSmInfoRecord, kGet | kTable, handle_sm_info_record},
    AttrEntry{attr::kLinkRecord, kGet | kTable, handle_link_record},
    AttrEntry{attr::kGuidInfoRecord, kGet | kTable | kSet | kDelete, handle_guid_info_record},
    AttrEntry{attr::kServiceRecord, kGet | kTable | kSet | kDelete, handle_service_record},
    AttrEntry{attr::kPKeyTableRecord, kGet | kTable, handle_pkey_table_record},
    AttrEntry{attr::kPathRecord, kGet | kTable, handle_path_record},
    AttrEntry{attr::kVlArbTableRecord, kGet | kTable, handle_vlarb_record},
    AttrEntry{attr::kMcMemberRecord, kGet | kTable | kSet | kDelete, handle_mcmember_record},
    AttrEntry{attr::kTraceRecord, kTrace, handle_trace_record},
    AttrEntry{attr::kMultiPathRecord, kMulti, handle_multipath_record},
    AttrEntry{attr::kInformInfoRecord, kGet | kTable, handle_inform_info_record},
};

}  // namespace

const AttrEntry* find_attr(std::uint16_t attr_id) {
  for (const AttrEntry& e : kTableOfAttrs)
    if (e.attr_id == attr_id) return &e;
  return nullptr;
}

}  // namespace ibsm::sa
