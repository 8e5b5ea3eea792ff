#include "sm/publish/sa_snapshot.hpp"

#include <algorithm>

namespace ibsm::sm {

sa::SaSettings sa_settings(const conf::Options& o) {
  sa::SaSettings s;
  s.sa_key = o.sa_key;
  s.subnet_timeout = o.subnet_timeout;
  s.packet_life_time = o.packet_life_time;
  s.sm_sl = o.sm_sl;
  s.qos = o.qos;
  s.allow_both_pkeys = o.allow_both_pkeys;
  s.use_mfttop = o.use_mfttop;
  s.disable_multicast = o.disable_multicast;
  s.ipoib_mcgroup_creation_validation = o.ipoib_mcgroup_creation_validation;
  s.mcgroup_join_validation = o.mcgroup_join_validation;
  s.consolidate_ipv6_snm_req = o.consolidate_ipv6_snm_req;
  s.use_original_extended_sa_rates_only = o.use_original_extended_sa_rates_only;
  s.drop_event_subscriptions = o.drop_event_subscriptions;
  s.enable_quirks = o.enable_quirks;
  s.sm_assigned_guid = o.sm_assigned_guid;
  s.transaction_timeout_ms = o.transaction_timeout;
  s.transaction_retries = o.transaction_retries;
  s.sa_db_file = o.sa_db_file;
  s.sa_db_dump = o.sa_db_dump;
  s.dump_files_dir = o.dump_files_dir;
  s.max_service_records_per_port = o.sa_max_service_records_per_port;
  s.max_service_records = o.sa_max_service_records;
  s.max_inform_info_per_port = o.sa_max_inform_info_per_port;
  s.max_inform_info = o.sa_max_inform_info;
  s.max_mcast_memberships_per_port = o.sa_max_mcast_memberships_per_port;
  s.max_mcast_groups_per_port = o.sa_max_mcast_groups_per_port;
  s.max_mcast_memberships = o.sa_max_mcast_memberships;
  return s;
}

sa::MutableSnapshotPtr build_sa_snapshot(const SaSnapshotInput& in) {
  auto snap = std::make_shared<sa::Snapshot>();
  const Fabric& f = in.fabric;
  snap->generation = in.generation;
  snap->subnet_prefix = in.options.subnet_prefix;
  snap->prefix_routes = in.prefix_routes;
  for (NodeIndex i = 0; i < f.size(); ++i) {
    const Node& n = f.node(i);
    if (n.type() != mad::NodeType::kRouter) continue;
    for (const Port& p : n.ports)
      if (p.present && p.num != 0 && p.guid != 0) snap->router_ports.push_back(p.guid);
  }
  std::sort(snap->router_ports.begin(), snap->router_ports.end());
  snap->sm_lid = in.sm_lid;
  snap->nodes.resize(f.size());
  for (NodeIndex i = 0; i < f.size(); ++i) {
    const Node& n = f.node(i);
    sa::SnapNode& s = snap->nodes[i];
    s.info = n.info;
    s.description = n.description;
    s.switch_info = n.switch_info;
    // MulticastForwardingTableRecord answers what the switches confirmed holding.
    if (n.is_switch() && in.mcast != nullptr) s.mft = in.mcast->held_table(n.guid());
    s.ports.resize(n.ports.size());
    for (std::size_t p = 0; p < n.ports.size(); ++p) {
      const Port& from = n.ports[p];
      sa::SnapPort& to = s.ports[p];
      to.num = static_cast<PortNum>(p);
      to.present = from.present;
      to.guid = from.guid;
      to.info = from.info;
      to.pkeys = from.pkeys;
      if (in.tables != nullptr) {
        to.vl_tables = in.tables->vl_tables(n.guid(), to.num);
        if (to.pkeys.empty()) {
          if (const auto* pk = in.tables->pkeys(n.guid(), to.num)) to.pkeys = *pk;
        }
      }
      if (from.peer != kNoNode) to.peer = sa::PortRef{from.peer, from.peer_port};
      to.lid = from.lid;
      to.lmc = from.lmc;
      // Switch external ports keep the LID fields they answered with (IBA 14.2.5.6:
      // only port 0 has them; ibsim answers 0), as OpenSM's PortInfoRecord shows
      // them; end ports and port 0 show the LID assigned in this sweep.
      if ((!n.is_switch() || p == 0) && from.lid != 0) {
        to.info.lid = from.lid;
        to.info.lmc = from.lmc;
      }
    }
  }
  for (std::size_t s = 0; s < in.routes.lfts.size() && s < in.routed_switches.size(); ++s)
    snap->nodes[in.routed_switches[s]].lft = in.routes.lfts[s];
  if (f.sm_node != kNoNode) snap->sm_port = sa::PortRef{f.sm_node, f.sm_port};

  // Path SLs: a source LID reads the row of the switch its port hangs off (a switch's
  // own LIDs, its port 0, read its row), as routing::PathSls is indexed.
  if (in.path_sls && !in.path_sls->empty()) {
    std::vector<std::uint32_t> row_of_node(f.size(), sa::PathSlTable::kNoRow);
    for (std::size_t r = 0; r < in.routed_switches.size(); ++r)
      row_of_node[in.routed_switches[r]] = static_cast<std::uint32_t>(r);
    sa::PathSlTable& t = snap->path_sl;
    t.columns = in.path_sls->lids;
    // Aliasing: the snapshot keeps the whole PathSls alive through its table.
    t.sl = std::shared_ptr<const std::vector<std::uint8_t>>(in.path_sls, &in.path_sls->table);
    t.requester_bits = in.path_sls->requester_bits;
    for (const auto& h : f.lid_holders()) {
      const Node& n = f.node(h.node);
      const Port& p = n.ports[h.port];
      std::uint32_t row = sa::PathSlTable::kNoRow;
      if (n.is_switch())
        row = row_of_node[h.node];
      else if (p.peer != kNoNode && f.node(p.peer).is_switch())
        row = row_of_node[p.peer];
      if (row == sa::PathSlTable::kNoRow || p.lid == 0) continue;
      const std::size_t last = std::size_t{p.lid} + (std::size_t{1} << p.lmc);
      if (t.row_of_lid.size() < last) t.row_of_lid.resize(last, sa::PathSlTable::kNoRow);
      for (std::size_t l = p.lid; l < last; ++l)
        t.row_of_lid[l] = row;
    }
  }

  for (const auto& g : in.groups.by_mlid()) {
    sa::SnapGroup sg;
    sg.mgid = g.params.mgid;
    sg.mlid = g.mlid;
    sg.qkey = g.params.qkey;
    sg.pkey = g.params.pkey;
    sg.mtu = g.params.mtu;
    sg.rate = g.params.rate;
    sg.sl = g.params.sl;
    sg.scope = g.params.scope;
    // OpenSM's pre-created groups (osm_prtn_add_mcgroup): HopLimit 0 for link-local
    // scope, 0xFF beyond it.
    sg.hop_limit = g.params.scope == 2 ? 0 : 0xff;
    sg.tclass = g.params.tclass;
    sg.flow_label = g.params.flow_label;
    sg.packet_life = in.options.subnet_timeout;
    sg.well_known = g.origin == partitions::McGroup::Origin::kConfigured;
    snap->groups.push_back(std::move(sg));
  }

  if (f.sm_node != kNoNode) {
    sa::SnapSm me;
    me.port = snap->sm_port;
    me.lid = in.sm_lid;
    me.guid = f.node(f.sm_node).ports[f.sm_port].guid;
    me.sm_key = in.options.sm_key;
    me.act_count = in.act_count;
    me.priority = in.options.sm_priority;
    me.state = in.sm_state;
    snap->sms.push_back(me);
  }
  if (in.partitions != nullptr) {
    for (const auto& p : in.partitions->partitions)
      snap->partitions.push_back({static_cast<std::uint16_t>(p.pkey & 0x7fff), p.sl});
    std::sort(
        snap->partitions.begin(), snap->partitions.end(),
        [](const sa::SnapPartition& a, const sa::SnapPartition& b) { return a.pkey < b.pkey; });
  }
  snap->index();
  return snap;
}

}  // namespace ibsm::sm
