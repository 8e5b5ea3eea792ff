// The M_Key seam of the sweeps (sm/mkey/sweep_keys.hpp).
#include "sm/mkey/sweep_keys.hpp"

#include <sys/stat.h>

#include "sm/mkey/errors.hpp"

namespace ibsm::sm::mkey {

void SweepKeys::apply_options(conf::Options& o) {
  // Protected leases need sweeps: OpenSM turns a disabled sweep back on (lease - 1 s).
  const auto level = effective_protection_level(o.m_key_protection_level);
  const auto sweep = effective_sweep_interval(level, o.m_key_lease_period, o.sweep_interval);
  if (o.m_key != 0 && sweep != o.sweep_interval) {
    log_->warn("sweeping is off but protected M_Key leases are in effect: sweep interval {} s",
               sweep);
    o.sweep_interval = sweep;
  }
  keys_.set_settings(mkey_settings(o, o.m_key != 0 ? &log_ : nullptr));
}

void SweepKeys::load(const std::string& cache_dir) {
  keys_.load(cache_dir + "/guid2mkey");
  keys_.load_neighbors(cache_dir + "/neighbors");
}

void SweepKeys::save(const Fabric& last, const std::string& cache_dir, bool durable) {
  // The links this sweep found, for the next start's first NodeInfo probes.
  for (NodeIndex i = 0; i < last.size(); ++i) {
    for (const Port& p : last.node(i).ports) {
      if (p.num == 0 || p.peer == kNoNode) continue;
      const auto a = cache_port_guid(last, i, p.num);
      const auto b = cache_port_guid(last, p.peer, p.peer_port);
      if (a && b) keys_.record_link({*a, p.num}, {*b, p.peer_port});
    }
  }
  // OpenSM rewrites both after every completed heavy sweep; the same contents again
  // would only cost an fsync.
  if (!keys_.dirty() && !keys_.neighbors_dirty()) return;
  ::mkdir(cache_dir.c_str(), 0755);
  if (keys_.dirty()) {
    if (auto st = keys_.save(cache_dir + "/guid2mkey", durable); !st.ok())
      log_->error("{}: {}", format_error_id(kErrGuid2MkeyWrite), st.error().message);
  }
  if (keys_.neighbors_dirty()) {
    if (auto st = keys_.save_neighbors(cache_dir + "/neighbors", durable); !st.ok())
      log_->error("{}: {}", format_error_id(kErrGuid2MkeyWrite), st.error().message);
  }
}

std::uint64_t SweepKeys::resolve(const mad::SmpTarget& target, const Fabric& last) const {
  const MkeySettings& s = keys_.settings();
  // Nothing configured and no key seen: every port has key 0 as far as we know.
  if (!s.lookup || !keys_.in_use()) return s.m_key;
  return keys_.key_for(target_port(target, building_, last, lids_, keys_.neighbors()));
}

void SweepKeys::learn(const Node& node, PortNum port) {
  const Port& p = node.ports[port];
  keys_.learn(p.guid, p.info, node.is_switch() ? port == 0 : port != 0);
}

void SweepKeys::hint(const mad::SmpOutcome& o, const Fabric& last) const {
  // OpenSM's ERR 3119/3120: with keys in play a lost request may be a port dropping it.
  if (o.failure == nullptr || o.failure->kind != mad::SmpFailure::Kind::kTimeout || !keys_.in_use())
    return;
  const bool set = o.request.method == mad::Method::kSet;
  log_->error("{}: {} {}: no answer with M_Key 0x{:016x}; possible mis-set M_Key?",
              format_error_id(set ? kErrMkeySetFailed : kErrMkeyGetFailed),
              set ? "Set failed:" : "Timeout while getting:", o.request.describe(),
              o.request.m_key != 0 ? o.request.m_key : resolve(o.request.target, last));
}

SmInfoAccess SweepKeys::own_sminfo_access(const mad::Smp& req, const Fabric& last) const {
  if (last.sm_node == kNoNode || last.sm_node >= last.size()) return SmInfoAccess::kAnswer;
  const Node& own = last.node(last.sm_node);
  if (last.sm_port >= own.ports.size()) return SmInfoAccess::kAnswer;
  const mad::PortInfo& pi = own.ports[last.sm_port].info;
  return sminfo_access(req.method(), pi.m_key, pi.m_key_protect_bits, req.m_key());
}

}  // namespace ibsm::sm::mkey
