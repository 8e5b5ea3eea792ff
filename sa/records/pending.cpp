// Attributes whose handlers are being written: dropped like unknown attributes
// until then (OpenSM's behaviour for attributes it does not serve).
#include "sa/handlers.hpp"

namespace ibsm::sa {

HandlerResult handle_port_info_record(RequestContext&) { return HandlerResult::silent(); }
HandlerResult handle_sl2vl_record(RequestContext&) { return HandlerResult::silent(); }
HandlerResult handle_switch_info_record(RequestContext&) { return HandlerResult::silent(); }
HandlerResult handle_lft_record(RequestContext&) { return HandlerResult::silent(); }
HandlerResult handle_mft_record(RequestContext&) { return HandlerResult::silent(); }
HandlerResult handle_sm_info_record(RequestContext&) { return HandlerResult::silent(); }
HandlerResult handle_inform_info(RequestContext&) { return HandlerResult::silent(); }
HandlerResult handle_inform_info_record(RequestContext&) { return HandlerResult::silent(); }
HandlerResult handle_link_record(RequestContext&) { return HandlerResult::silent(); }
HandlerResult handle_guid_info_record(RequestContext&) { return HandlerResult::silent(); }
HandlerResult handle_service_record(RequestContext&) { return HandlerResult::silent(); }
HandlerResult handle_pkey_table_record(RequestContext&) { return HandlerResult::silent(); }
HandlerResult handle_path_record(RequestContext&) { return HandlerResult::silent(); }
HandlerResult handle_vlarb_record(RequestContext&) { return HandlerResult::silent(); }
HandlerResult handle_mcmember_record(RequestContext&) { return HandlerResult::silent(); }
HandlerResult handle_trace_record(RequestContext&) { return HandlerResult::silent(); }
HandlerResult handle_multipath_record(RequestContext&) { return HandlerResult::silent(); }

}  // namespace ibsm::sa
