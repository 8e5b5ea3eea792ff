#include "sm/publish/perfmgr_link.hpp"

namespace ibsm::sm {

perfmgr::PerfSettings perf_settings(const conf::Options& o) {
  perfmgr::PerfSettings s;
  s.enabled = o.perfmgr;
  // OpenSM refuses 0 and uses its default (180 s) instead.
  s.sweep_time = std::chrono::seconds(o.perfmgr_sweep_time_s == 0 ? 180 : o.perfmgr_sweep_time_s);
  s.max_outstanding =
      o.perfmgr_max_outstanding_queries == 0 ? 500 : o.perfmgr_max_outstanding_queries;
  s.ignore_cas = o.perfmgr_ignore_cas;
  s.rm_nodes = o.perfmgr_rm_nodes;
  s.log_errors = o.perfmgr_log_errors;
  s.query_cpi = o.perfmgr_query_cpi;
  s.xmit_wait_log = o.perfmgr_xmit_wait_log;
  s.xmit_wait_threshold = o.perfmgr_xmit_wait_threshold;
  s.redirect = o.perfmgr_redir;
  s.timeout = std::chrono::milliseconds(o.transaction_timeout);
  s.retries = o.transaction_retries;
  s.dump_file = o.event_db_dump_file;
  return s;
}

perfmgr::FabricViewPtr perfmgr_view(const Fabric& f) {
  auto name = [](const Node& n) { return n.display_name(); };
  auto v = std::make_shared<perfmgr::FabricView>();
  v->nodes.reserve(f.size());
  for (const Node& n : f.nodes()) {
    perfmgr::ViewNode vn;
    vn.guid = n.guid();
    vn.name = name(n);
    vn.is_switch = n.is_switch();
    vn.esp0 = n.switch_info && n.switch_info->enhanced_port0;
    vn.ports.resize(std::size_t{n.num_ports()} + 1);
    const Lid switch_lid = n.is_switch() && !n.ports.empty() ? n.ports[0].lid : 0;
    for (std::size_t p = 0; p < vn.ports.size() && p < n.ports.size(); ++p) {
      const Port& port = n.ports[p];
      perfmgr::ViewPort& vp = vn.ports[p];
      if (!port.present) continue;
      vp.valid = true;
      vp.lid = n.is_switch() ? switch_lid : port.lid;
      vp.link_width_active = port.info.link_width_active;
      vp.link_speed_active = port.info.link_speed_active;
      vp.link_speed_ext_active = port.info.link_speed_ext_active;
      if (port.peer != kNoNode && port.peer < f.size()) {
        const Node& peer = f.node(port.peer);
        vp.remote_valid = true;
        vp.remote_guid = peer.guid();
        vp.remote_name = name(peer);
        vp.remote_port = port.peer_port;
        vp.remote_is_switch = peer.is_switch();
      }
    }
    v->nodes.push_back(std::move(vn));
  }
  if (f.sm_node != kNoNode && f.sm_node < f.size()) {
    const Node& sm = f.node(f.sm_node);
    if (f.sm_port < sm.ports.size()) v->local_pkeys = sm.ports[f.sm_port].pkeys;
  }
  if (v->local_pkeys.empty()) v->local_pkeys = {0xFFFF};  // the default partition
  return v;
}

}  // namespace ibsm::sm
