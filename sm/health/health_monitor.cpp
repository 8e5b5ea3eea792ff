#include "sm/health/health_monitor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "common/atomic_file.hpp"
#include "common/text.hpp"
#include "mad/attr/port_info.hpp"
#include "sm/health/errors.hpp"
#include "sm/health/unhealthy_dump.hpp"

namespace ibsm::sm::health {

namespace {

bool at_least_armed(mad::PortState s) {
  return s == mad::PortState::kArmed || s == mad::PortState::kActive;
}

bool linked(const Port& p) {
  return p.link_up() && p.peer != kNoNode;
}

const Port* port_of(const Fabric& f, NodeIndex n, PortNum p) {
  if (n == kNoNode) return nullptr;
  const Node& node = f.node(n);
  return p < node.ports.size() ? &node.ports[p] : nullptr;
}

// Inter-switch links whose loss leaves some switch unreachable from the others
// (bridges of the switch graph, Tarjan's low-link, iterative), both ends named.
std::set<std::pair<Guid, PortNum>> switch_bridges(const Fabric& f) {
  struct Edge {
    NodeIndex to;
    std::uint32_t id;
    PortNum port, peer_port;
  };
  std::vector<std::vector<Edge>> adj(f.size());
  std::uint32_t next_id = 0;
  for (NodeIndex i = 0; i < f.size(); ++i) {
    const Node& n = f.node(i);
    if (!n.is_switch()) continue;
    for (const Port& p : n.ports) {
      if (!linked(p) || p.peer < i || !f.node(p.peer).is_switch()) continue;
      if (p.peer == i && p.peer_port <= p.num) continue;
      adj[i].push_back({p.peer, next_id, p.num, p.peer_port});
      adj[p.peer].push_back({i, next_id, p.peer_port, p.num});
      ++next_id;
    }
  }
  std::set<std::pair<Guid, PortNum>> out;
  std::vector<std::uint32_t> order(f.size(), 0), low(f.size(), 0);
  std::uint32_t counter = 0;
  struct Frame {
    NodeIndex node;
    std::uint32_t parent_edge;
    std::size_t next;
  };
  for (NodeIndex root = 0; root < f.size(); ++root) {
    if (order[root] != 0 || adj[root].empty()) continue;
    std::vector<Frame> stack{{root, UINT32_MAX, 0}};
    order[root] = low[root] = ++counter;
    while (!stack.empty()) {
      Frame& fr = stack.back();
      if (fr.next < adj[fr.node].size()) {
        const Edge e = adj[fr.node][fr.next++];
        if (e.id == fr.parent_edge) continue;
        if (order[e.to] == 0) {
          order[e.to] = low[e.to] = ++counter;
          stack.push_back({e.to, e.id, 0});
        } else {
          low[fr.node] = std::min(low[fr.node], order[e.to]);
        }
        continue;
      }
      const Frame done = fr;
      stack.pop_back();
      if (stack.empty()) break;
      const NodeIndex parent = stack.back().node;
      low[parent] = std::min(low[parent], low[done.node]);
      if (low[done.node] > order[parent]) {
        for (const Edge& e : adj[parent])
          if (e.id == done.parent_edge) {
            out.insert({f.node(parent).guid(), e.port});
            out.insert({f.node(done.node).guid(), e.peer_port});
          }
      }
    }
  }
  return out;
}

std::vector<ops::EventField> event_fields(const Decision& d, const Fabric& f) {
  std::vector<ops::EventField> fields{
      {"guid", hex_guid(d.port.key.node_guid)},
      {"port", static_cast<std::uint64_t>(d.port.key.port)},
      {"name", d.port.node_name},
      {"condition", std::string(condition_name(d.condition))},
      {"action", std::string(action_name(d.action))},
  };
  std::uint64_t rguid = 0, rport = 0;
  std::string rname;
  const NodeIndex n = f.find(d.port.key.node_guid);
  if (const Port* p = port_of(f, n, d.port.key.port); p && p->peer != kNoNode) {
    rguid = f.node(p->peer).guid();
    rport = p->peer_port;
    rname = f.node(p->peer).display_name();
  }
  fields.push_back({"remote_guid", hex_guid(rguid)});
  fields.push_back({"remote_port", rport});
  fields.push_back({"remote_name", std::move(rname)});
  return fields;
}

}  // namespace

HealthMonitor::HealthMonitor(Logger log, const Clock& clock)
    : log_(std::move(log)), clock_(&clock), judge_(HealthConfig{}, clock) {}

void HealthMonitor::configure(const conf::Options& o) {
  HealthConfigResult r = health_config_from(o);
  for (const std::string& w : r.warnings)
    log_->warn("{}", w);
  const bool was = judge_.config().enabled;
  judge_.set_config(r.config);
  policy_path_ = o.hm_ports_health_policy_file;
  const std::string dump = o.dump_files_dir.empty()
                               ? std::string{}
                               : o.dump_files_dir + (o.dump_files_dir.back() == '/' ? "" : "/") +
                                     "opensm-unhealthy-ports.dump";
  const bool first = dump_path_.empty() && !dump.empty();
  dump_path_ = dump;
  if (was && !r.config.enabled) {
    // Checks off: every port back in service, its actions undone by apply().
    for (const Decision& d : judge_.unhealthy_ports()) {
      judge_.clear(d.port.key);
      cleared_[d.port.key] = d;
      pending_.healthy.push_back(d.port.key);
    }
  }
  if (first) write_dump();  // no stale list of an earlier run
}

void HealthMonitor::reload_policy(const Fabric& f) {
  const auto num_ports = [&f](Guid g) -> std::optional<unsigned> {
    NodeIndex n = f.find(g);
    if (n == kNoNode) {
      for (NodeIndex i = 0; i < f.size() && n == kNoNode; ++i)
        for (const Port& p : f.node(i).ports)
          if (p.guid == g && g != 0) n = i;
    }
    if (n == kNoNode) return std::nullopt;
    return f.node(n).num_ports();
  };
  const std::vector<Decision> before = judge_.unhealthy_ports();
  policy_loaded_ = true;
  if (policy_path_.empty()) {
    policy_error_.clear();
    policy_ = HealthPolicy{};
    take(judge_.set_policy(HealthPolicy{}));
  } else {
    PolicyReload r = health::reload_policy(policy_path_, num_ports, HealthPolicy{});
    if (r.error) {
      policy_error_ = fmt::format("{}: {}", format_error_id(r.error->id), r.error->message);
      log_->error("{}; the last good health policy stays in force", policy_error_);
      pending_changed_ = true;
      return;
    }
    policy_error_.clear();
    log_->info("health policy {}: {} ports", policy_path_, r.policy.entries().size());
    policy_ = r.policy;
    take(judge_.set_policy(std::move(r.policy)));
  }
  for (const Decision& d : before)
    if (std::find(pending_.healthy.begin(), pending_.healthy.end(), d.port.key) !=
        pending_.healthy.end())
      cleared_[d.port.key] = d;
  pending_changed_ = true;
}

PortFacts HealthMonitor::facts(const Fabric& f, NodeIndex n, PortNum p) const {
  const Node& node = f.node(n);
  PortFacts facts;
  facts.key = {node.guid(), p};
  facts.kind = node.is_switch() ? NodeKind::kSwitch : NodeKind::kCa;
  facts.port_guid = node.is_switch() || p >= node.ports.size() ? node.guid() : node.ports[p].guid;
  facts.node_name = node.display_name();
  // Only a link between two switches is ever isolated: a CA's or router's LID is
  // reachable over its own link alone, and a link whose loss cuts switches apart
  // carries routes nothing else can.
  const Port* port = port_of(f, n, p);
  const bool host_end =
      !node.is_switch() || (port && port->peer != kNoNode && !f.node(port->peer).is_switch());
  facts.sole_host_link = p == 0 || host_end || sole_.contains({node.guid(), p});
  return facts;
}

void HealthMonitor::take(Outcome o) {
  for (Decision& d : o.unhealthy)
    pending_.unhealthy.push_back(std::move(d));
  for (const PortKey& k : o.healthy)
    pending_.healthy.push_back(k);
}

void HealthMonitor::add_manual(const Fabric& f, std::vector<PortSweep>& hits) const {
  // Every sweep, light ones too: one pass over the fabric for the entries that name a CA
  // port GUID (not one per entry), and a set of the ports already hit.
  std::map<Guid, NodeIndex> by_port_guid;
  bool indexed = false;
  std::set<PortKey> hit;
  for (const PortSweep& s : hits)
    hit.insert(s.port.key);
  for (const PolicyEntry& e : policy_.entries()) {
    if (e.health != PortHealth::kUnhealthy) continue;
    NodeIndex n = f.find(e.guid);
    if (n == kNoNode) {
      if (!std::exchange(indexed, true))
        for (NodeIndex i = 0; i < f.size(); ++i)
          if (!f.node(i).is_switch())
            for (const Port& p : f.node(i).ports)
              if (p.guid != 0) by_port_guid.emplace(p.guid, i);
      if (const auto it = by_port_guid.find(e.guid); it != by_port_guid.end()) n = it->second;
    }
    if (n == kNoNode || e.port > f.node(n).num_ports()) continue;
    const PortKey key{f.node(n).guid(), e.port};
    if (!hit.insert(key).second) continue;
    PortSweep s;
    s.port = facts(f, n, e.port);
    hits.push_back(std::move(s));
  }
}

void HealthMonitor::add_ports(const Fabric& f, const std::vector<PortKey>& ports,
                              const std::function<void(PortSweep&)>& mark,
                              std::vector<PortSweep>& hits) const {
  // An index, not a search per entry: a switch that takes no Set fails one per LFT block.
  std::map<PortKey, std::size_t> at;
  for (std::size_t i = 0; i < hits.size(); ++i)
    at.emplace(hits[i].port.key, i);
  for (const PortKey& key : ports) {
    auto [it, fresh] = at.try_emplace(key, hits.size());
    if (fresh) {
      const NodeIndex n = f.find(key.node_guid);
      if (n == kNoNode || key.port > f.node(n).num_ports()) {
        at.erase(it);
        continue;
      }
      PortSweep s;
      s.port = facts(f, n, key.port);
      hits.push_back(std::move(s));
    }
    mark(hits[it->second]);
  }
}

void HealthMonitor::observe_sweep(const Fabric& before, const Fabric& now,
                                  const std::vector<PortKey>& illegal) {
  if (!enabled()) return;
  std::vector<PortSweep> hits;
  for (NodeIndex i = 0; i < now.size(); ++i) {
    const Node& n = now.node(i);
    const NodeIndex b = before.size() > 0 ? before.find(n.guid()) : kNoNode;
    const bool back = b == kNoNode && seen_.contains(n.guid());
    seen_.insert(n.guid());
    for (const Port& p : n.ports) {
      if (!p.present) continue;
      if (n.is_switch() ? p.num != 0 && p.num > n.num_ports() : p.num == 0) continue;
      PortSweep s;
      const Port* old = port_of(before, b, p.num);
      const PortKey key{n.guid(), p.num};
      if (p.num != 0) {
        if (old && linked(*old) && !p.link_up()) went_down_.insert(key);
        if (p.link_up() && went_down_.erase(key) > 0) s.flapped = true;
        // Up in both, but read Init where it had been Armed or Active: it bounced
        // between the two sweeps.
        if (old && linked(*old) && at_least_armed(old->info.port_state) &&
            p.info.port_state == mad::PortState::kInit)
          s.flapped = true;
        s.no_response = p.link_up() && p.peer_unreachable;
      }
      // Rebooted: back after a sweep without it, or a configured LID read as 0.
      const bool lid_holder = n.is_switch() ? p.num == 0 : p.num != 0;
      if (lid_holder)
        s.rebooted = back || (old && old->lid != 0 && p.info.lid == 0 &&
                              p.info.port_state == mad::PortState::kInit);
      if (!s.flapped && !s.no_response && !s.rebooted) continue;
      s.port = facts(now, i, p.num);
      hits.push_back(std::move(s));
    }
  }
  // A flap is seen at both ends of its link: it is counted once, at the end with the
  // lower (GUID, port), so one bad cable is one unhealthy port.
  std::set<PortKey> flapped;
  for (const PortSweep& s : hits)
    if (s.flapped) flapped.insert(s.port.key);
  for (PortSweep& s : hits) {
    if (!s.flapped) continue;
    const NodeIndex n = now.find(s.port.key.node_guid);
    const Port* p = port_of(now, n, s.port.key.port);
    if (!p || p->peer == kNoNode) continue;
    const PortKey peer{now.node(p->peer).guid(), p->peer_port};
    if (peer < s.port.key && flapped.contains(peer)) s.flapped = false;
  }
  std::erase_if(hits, [](const PortSweep& s) {
    return !s.flapped && !s.no_response && !s.rebooted && s.illegal == 0;
  });
  // Impossible answers: one count each (a port missing from the model, its PortInfo
  // refused, still has its node's GUID and its number).
  add_ports(
      now, illegal, [](PortSweep& s) { ++s.illegal; }, hits);
  // Ports that went down and whose node is gone: no flap to wait for.
  if (went_down_.size() > 4 * now.size() + 64) went_down_.clear();
  add_manual(now, hits);
  take(judge_.judge_sweep(hits));
}

void HealthMonitor::observe_sets(const Fabric& f, const std::vector<PortKey>& failed) {
  if (!enabled() || failed.empty()) return;
  std::vector<PortSweep> hits;
  add_ports(
      f, failed, [](PortSweep& s) { s.set_failed = true; }, hits);
  take(judge_.judge_same_sweep(hits));
}

void HealthMonitor::observe_light_sweep(const Fabric& f, const std::vector<NodeIndex>& no_answer) {
  if (!enabled()) return;
  std::vector<PortSweep> hits;
  for (NodeIndex n : no_answer) {
    PortSweep s;
    s.port = facts(f, n, 0);
    s.no_response = true;
    hits.push_back(std::move(s));
  }
  add_manual(f, hits);
  take(judge_.judge_sweep(hits));
}

void HealthMonitor::on_trap(const Fabric& f, Lid lid, PortNum port, Lid source) {
  if (!enabled()) return;
  for (const LidHolder& h : f.lid_holders()) {
    const Port& holder = f.node(h.node).ports[h.port];
    const auto owns = [&](Lid l) { return l >= holder.lid && l < holder.lid + (1u << holder.lmc); };
    if (!owns(lid)) continue;
    // A port reports its own errors (IBA 14.2.5.1): anything else is forged.
    if (!owns(source)) {
      log_->debug("port-error trap from LID {} about LID {}: not its own, not counted", source,
                  lid);
      return;
    }
    const Node& n = f.node(h.node);
    const PortNum p = n.is_switch() ? port : h.port;
    if (p == 0 || p > n.num_ports()) return;
    take(judge_.on_trap(facts(f, h.node, p)));
    return;
  }
}

void HealthMonitor::on_counters(const Fabric& f, const perfmgr::CounterSnapshot& counters) {
  if (!enabled()) return;
  const auto now = clock_->now();
  const Clock::Duration elapsed = now - counters_at_;
  const bool first = !counters_seen_;
  counters_seen_ = true;
  counters_at_ = now;
  for (const perfmgr::PortCounterRow& row : counters.ports) {
    const std::array<std::uint64_t, 4> cur{
        row.err[perfmgr::Err::kSymbol], row.err[perfmgr::Err::kLinkRecover],
        row.err[perfmgr::Err::kLinkDowned], row.err[perfmgr::Err::kRcv]};
    const PortKey key{row.guid, static_cast<PortNum>(row.port)};
    auto [it, fresh] = counter_totals_.try_emplace(key, cur);
    // The first reading is the baseline: what a port counted before is no rate.
    if (fresh || first) {
      it->second = cur;
      continue;
    }
    CounterDeltas d;
    std::array<std::uint64_t, 4> delta{};
    for (std::size_t i = 0; i < 4; ++i)  // lower: the totals were cleared
      delta[i] = cur[i] >= it->second[i] ? cur[i] - it->second[i] : cur[i];
    it->second = cur;
    d.symbol_errors = delta[0];
    d.link_error_recovery = delta[1];
    d.link_downed = delta[2];
    d.port_rcv_errors = delta[3];
    d.elapsed = elapsed;
    const NodeIndex n = f.find(row.guid);
    if (n == kNoNode || row.port > f.node(n).num_ports()) continue;
    take(judge_.on_counters(facts(f, n, key.port), d));
  }
}

void HealthMonitor::after_subnet_up(const Fabric& f) {
  std::set<PortKey> prot;
  if (f.sm_node != kNoNode) {
    const Node& sm = f.node(f.sm_node);
    prot.insert({sm.guid(), f.sm_port});
    if (const Port* p = port_of(f, f.sm_node, f.sm_port); p && p->peer != kNoNode)
      prot.insert({f.node(p->peer).guid(), p->peer_port});
    if (sm.is_switch()) prot.insert({sm.guid(), 0});
  }
  protected_ = prot;
  judge_.set_protected_ports(std::move(prot));
  sole_ = switch_bridges(f);
}

bool HealthMonitor::clear(const PortKey& key) {
  const std::vector<Decision> now = judge_.unhealthy_ports();
  const auto it =
      std::find_if(now.begin(), now.end(), [&](const Decision& d) { return d.port.key == key; });
  if (it == now.end() || !judge_.clear(key)) return false;
  cleared_[key] = *it;
  pending_.healthy.push_back(key);
  return true;
}

Applied HealthMonitor::apply(const Fabric& f, mad::SmpClient& client, Lid sm_lid) {
  Applied a;
  a.changed = std::exchange(pending_changed_, false);
  if (pending_.empty()) return a;
  Outcome o = std::exchange(pending_, Outcome{});
  a.changed = true;
  // PortInfo Set PortPhysicalState of `key`'s link, on the end nearer the SM (it still
  // answers when the far end is gone); returns the port Set.
  const auto set_phys = [&](const PortKey& key, mad::PhysState phys,
                            std::optional<PortKey> at) -> std::optional<PortKey> {
    NodeIndex n = f.find(at ? at->node_guid : key.node_guid);
    PortNum p = at ? at->port : key.port;
    const Port* port = port_of(f, n, p);
    if (!port || !port->present) return std::nullopt;
    if (!at && port->peer != kNoNode && f.node(port->peer).path.hops() < f.node(n).path.hops()) {
      p = port->peer_port;
      n = port->peer;
      port = port_of(f, n, p);
    }
    const Node& node = f.node(n);
    mad::PortInfo pi = port->info;
    pi.port_state =
        phys == mad::PhysState::kDisabled ? mad::PortState::kDown : mad::PortState::kNoChange;
    pi.phys_state = phys;
    if (!node.is_switch()) {
      pi.lid = port->lid != 0 ? port->lid : pi.lid;
      pi.master_sm_lid = sm_lid;
    }
    const std::string where =
        fmt::format("{} {} port {}", node.display_name(), hex_guid(node.guid()), p);
    client.submit(mad::SmpRequest::set(mad::SmpTarget{node.path}, pi, p),
                  [log = log_, where, phys](const mad::SmpOutcome& r) {
                    if (!r.ok())
                      log->warn("{}: PortInfo Set of {} (PortPhysicalState {}) failed",
                                format_error_id(kErrPortUnhealthy), where,
                                static_cast<unsigned>(phys));
                  });
    return PortKey{node.guid(), p};
  };
  for (const PortKey& key : o.healthy) {
    const auto c = cleared_.find(key);
    if (c == cleared_.end()) continue;
    const Decision d = c->second;
    cleared_.erase(c);
    log_->info("port {} port {} ({}) healthy again: {} undone", hex_guid(key.node_guid), key.port,
               d.port.node_name, action_name(d.action));
    if (d.action == Action::kIsolate || d.action == Action::kNoDiscover) a.reroute = true;
    if (d.action == Action::kNoDiscover) a.rediscover = true;
    if (const auto dis = disabled_.find(key); dis != disabled_.end()) {
      set_phys(key, mad::PhysState::kPolling, dis->second);
      disabled_.erase(dis);
      a.rediscover = true;
    }
    a.events.emplace_back(ops::EventType::kPortHealthy, event_fields(d, f));
  }
  for (const Decision& d : o.unhealthy) {
    const std::string where = fmt::format("{} port {} ({})", hex_guid(d.port.key.node_guid),
                                          d.port.key.port, d.port.node_name);
    log_->warn("{}: {} unhealthy: {} ({}); action {}", format_error_id(kErrPortUnhealthy), where,
               condition_name(d.condition), d.detail, action_name(d.action));
    if (d.downgrade != Downgrade::kNone)
      log_->warn("{}: {}: {} asked, reported only ({})", format_error_id(kErrHealthActionLimited),
                 where, action_name(d.asked), downgrade_name(d.downgrade));
    if (d.action == Action::kIsolate || d.action == Action::kNoDiscover) a.reroute = true;
    if (d.action == Action::kDisable)
      if (auto at = set_phys(d.port.key, mad::PhysState::kDisabled, std::nullopt))
        disabled_[d.port.key] = *at;
    a.events.emplace_back(ops::EventType::kPortUnhealthy, event_fields(d, f));
  }
  // Discovery asks for every port it reaches: a set, not a walk over the decisions.
  no_discover_.clear();
  for (const Decision& d : judge_.unhealthy_ports())
    if (d.action == Action::kNoDiscover) no_discover_.insert(d.port.key);
  write_dump();
  return a;
}

bool HealthMonitor::enforce_cabling(const Fabric& f,
                                    const std::vector<cabling::Deviation>& deviations, bool on) {
  LinkExclusions links;
  for (const cabling::Deviation& d : on ? deviations : std::vector<cabling::Deviation>{}) {
    if (d.kind != cabling::DeviationKind::kWrongPort &&
        d.kind != cabling::DeviationKind::kWrongNode &&
        d.kind != cabling::DeviationKind::kExtraLink)
      continue;
    const NodeIndex n = f.find(d.local.guid);
    const Port* p = port_of(f, n, d.local.port);
    if (!p || p->peer == kNoNode || !f.node(n).is_switch() || !f.node(p->peer).is_switch())
      continue;
    const PortKey a{d.local.guid, d.local.port};
    const PortKey b{f.node(p->peer).guid(), p->peer_port};
    if (protected_.contains(a) || protected_.contains(b) || sole_.contains({a.node_guid, a.port}))
      continue;
    links.insert({a.node_guid, a.port});
  }
  if (links == enforced_) return false;
  log_->info("topo_config_enabled: {} deviating links left out of routing", links.size());
  enforced_ = std::move(links);
  return true;
}

LinkExclusions HealthMonitor::exclusions() const {
  LinkExclusions out = enforced_;
  for (const Decision& d : judge_.unhealthy_ports())
    if (d.action == Action::kIsolate || d.action == Action::kNoDiscover)
      out.insert({d.port.key.node_guid, d.port.key.port});
  return out;
}

bool HealthMonitor::stops_discovery(Guid node_guid, PortNum port) const {
  return !no_discover_.empty() && no_discover_.contains(PortKey{node_guid, port});
}

ops::HealthStatusPtr HealthMonitor::status(const Fabric& f) const {
  auto s = std::make_shared<ops::HealthStatus>();
  s->enabled = enabled();
  s->max_isolated = judge_.config().max_isolated;
  s->isolated = judge_.isolated_count();
  s->policy_file = policy_path_;
  s->policy_ok = policy_error_.empty();
  s->policy_error = policy_error_;
  s->dump_file = dump_path_;
  const WallAnchor anchor{clock_->now(), std::chrono::system_clock::now()};
  for (const Decision& d : judge_.unhealthy_ports()) {  // in key order
    ops::UnhealthyPort u;
    u.node_guid = d.port.key.node_guid;
    u.port = d.port.key.port;
    u.port_guid = d.port.port_guid;
    u.is_switch = d.port.kind == NodeKind::kSwitch;
    u.node_name = d.port.node_name;
    u.condition = condition_name(d.condition);
    u.action = action_name(d.action);
    u.asked = action_name(d.asked);
    u.downgrade = downgrade_name(d.downgrade);
    u.detail = d.detail;
    u.since = anchor.wall + std::chrono::duration_cast<std::chrono::system_clock::duration>(
                                d.since - anchor.steady);
    const NodeIndex n = f.find(u.node_guid);
    if (const Port* p = port_of(f, n, u.port); p && p->peer != kNoNode) {
      u.remote_guid = f.node(p->peer).guid();
      u.remote_port = p->peer_port;
      u.remote_name = f.node(p->peer).display_name();
    }
    s->ports.push_back(std::move(u));
  }
  return s;
}

void HealthMonitor::write_dump() {
  if (dump_path_.empty()) return;
  const WallAnchor anchor{clock_->now(), std::chrono::system_clock::now()};
  const Status st = write_file_atomically(
      dump_path_, format_unhealthy_dump(judge_.unhealthy_ports(), anchor), false);
  if (!st.ok()) log_->warn("{}: {}", format_error_id(st.error().id), st.error().message);
}

}  // namespace ibsm::sm::health
