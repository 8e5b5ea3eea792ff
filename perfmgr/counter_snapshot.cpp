#include "perfmgr/counter_snapshot.hpp"

#include <unordered_map>

#include "mad/attr/port_speeds.hpp"
#include "perfmgr/perf_manager.hpp"

namespace ibsm::perfmgr {

double lane_gbps(std::uint8_t speed_active, std::uint8_t speed_ext_active) {
  return mad::lane_signalling_gbps(mad::lane_speed_of(speed_active, speed_ext_active));
}

CounterSnapshotPtr PerfManager::counter_snapshot() const {
  auto s = std::make_shared<CounterSnapshot>();
  std::unordered_map<mad::Guid, const ViewNode*> view_of;
  if (view_)
    for (const ViewNode& v : view_->nodes)
      view_of.emplace(v.guid, &v);
  db_.for_each_node([&](const DbNode& dn) {
    const mad::Guid guid = dn.guid;
    const auto mon = monitored_.find(guid);
    const auto vi = view_of.find(guid);
    for (unsigned p = 0; p < dn.ports.size(); ++p) {
      const DbPort& dp = dn.ports[p];
      if (!dp.valid) continue;
      PortCounterRow r;
      r.guid = guid;
      r.name = dn.name;
      r.port = p;
      r.err = dp.err_total;
      r.data = dp.dc_total;
      if (mon != monitored_.end()) {
        r.is_switch = mon->second.is_switch;
        if (p < mon->second.ports.size()) {
          const MonPort& mp = mon->second.ports[p];
          r.remote_valid = mp.remote_valid;
          r.remote_guid = mp.remote_guid;
          r.remote_name = mp.remote_name;
          r.remote_port = mp.remote_port;
        }
      } else if (vi != view_of.end()) {
        r.is_switch = vi->second->is_switch;
      }
      if (vi != view_of.end() && p < vi->second->ports.size()) {
        const ViewPort& vp = vi->second->ports[p];
        r.link_width_active = vp.link_width_active;
        r.link_speed_active = vp.link_speed_active;
        r.link_speed_ext_active = vp.link_speed_ext_active;
      }
      s->ports.push_back(std::move(r));
    }
  });
  s->sweeps = stats_.sweeps;
  s->last_sweep_seconds = stats_.last_sweep.count();
  s->sent = stats_.sent;
  s->received = stats_.received;
  s->timeouts = stats_.timeouts;
  s->retries = stats_.retries;
  s->errors = stats_.errors;
  s->outstanding = on_wire_.size();
  return s;
}

}  // namespace ibsm::perfmgr
