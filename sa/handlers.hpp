// The attributes the SA serves, the methods each takes, and their handlers
// (one file per record family in sa/records/).
#pragma once

#include <cstdint>

#include "sa/context.hpp"

namespace ibsm::sa {

struct AttrEntry {
  std::uint16_t attr_id = 0;
  std::uint32_t methods = 0;  // bit m set: method m accepted (Get=1, Set=2, GetTable=0x12, ...)
  RecordHandler handler = nullptr;
  bool accepts(std::uint8_t m) const { return m < 32 && (methods >> m & 1u) != 0; }
};

// nullptr for an attribute the SA does not serve (OpenSM drops those silently).
const AttrEntry* find_attr(std::uint16_t attr_id);

HandlerResult handle_class_port_info(RequestContext& ctx);
HandlerResult handle_node_record(RequestContext& ctx);
HandlerResult handle_port_info_record(RequestContext& ctx);
HandlerResult handle_sl2vl_record(RequestContext& ctx);
HandlerResult handle_switch_info_record(RequestContext& ctx);
HandlerResult handle_lft_record(RequestContext& ctx);
HandlerResult handle_mft_record(RequestContext& ctx);
HandlerResult handle_sm_info_record(RequestContext& ctx);
HandlerResult handle_inform_info(RequestContext& ctx);
HandlerResult handle_inform_info_record(RequestContext& ctx);
HandlerResult handle_link_record(RequestContext& ctx);
HandlerResult handle_guid_info_record(RequestContext& ctx);
HandlerResult handle_service_record(RequestContext& ctx);
HandlerResult handle_pkey_table_record(RequestContext& ctx);
HandlerResult handle_path_record(RequestContext& ctx);
HandlerResult handle_vlarb_record(RequestContext& ctx);
HandlerResult handle_mcmember_record(RequestContext& ctx);
// MCMemberRecord Set (join/create) and Delete (leave): sa/records/mcmember_join.cpp.
HandlerResult handle_mcmember_join(RequestContext& ctx);
HandlerResult handle_mcmember_leave(RequestContext& ctx);
HandlerResult handle_trace_record(RequestContext& ctx);
HandlerResult handle_multipath_record(RequestContext& ctx);

}  // namespace ibsm::sa
