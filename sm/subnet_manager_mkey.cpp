// SubnetManager's M_Key part: OpenSM's M_Key management wired into the sweeps
// (sm/mkey/ holds the rules, the key store and the file format).
#include <sys/stat.h>

#include "sm/mkey/errors.hpp"
#include "sm/subnet_manager.hpp"

namespace ibsm::sm {

void SubnetManager::apply_mkey_options() {
  // Protected leases need sweeps: OpenSM turns a disabled sweep back on (lease - 1 s).
  const auto level = mkey::effective_protection_level(options_.m_key_protection_level);
  const auto sweep =
      mkey::effective_sweep_interval(level, options_.m_key_lease_period, options_.sweep_interval);
  if (options_.m_key != 0 && sweep != options_.sweep_interval) {
    log_->warn("sweeping is off but protected M_Key leases are in effect: sweep interval {} s",
               sweep);
    options_.sweep_interval = sweep;
  }
  mkeys_.set_settings(mkey::mkey_settings(options_, options_.m_key != 0 ? &log_ : nullptr));
}

void SubnetManager::load_guid2mkey() {
  mkeys_.load(options_.cache_dir + "/guid2mkey");
  mkeys_.load_neighbors(options_.cache_dir + "/neighbors");
}

void SubnetManager::save_guid2mkey() {
  // The links this sweep found, for the next start's first NodeInfo probes.
  for (NodeIndex i = 0; i < fabric_.size(); ++i) {
    for (const Port& p : fabric_.node(i).ports) {
      if (p.num == 0 || p.peer == kNoNode) continue;
      const auto a = mkey::cache_port_guid(fabric_, i, p.num);
      const auto b = mkey::cache_port_guid(fabric_, p.peer, p.peer_port);
      if (a && b) mkeys_.record_link({*a, p.num}, {*b, p.peer_port});
    }
  }
  // OpenSM rewrites both after every completed heavy sweep; the same contents again
  // would only cost an fsync.
  if (!mkeys_.dirty() && !mkeys_.neighbors_dirty()) return;
  ::mkdir(options_.cache_dir.c_str(), 0755);
  const bool durable = options_.fsync_high_avail_files;
  if (mkeys_.dirty()) {
    if (auto st = mkeys_.save(options_.cache_dir + "/guid2mkey", durable); !st.ok())
      log_->error("{}: {}", format_error_id(mkey::kErrGuid2MkeyWrite), st.error().message);
  }
  if (mkeys_.neighbors_dirty()) {
    if (auto st = mkeys_.save_neighbors(options_.cache_dir + "/neighbors", durable); !st.ok())
      log_->error("{}: {}", format_error_id(mkey::kErrGuid2MkeyWrite), st.error().message);
  }
}

std::uint64_t SubnetManager::resolve_mkey(const mad::SmpTarget& target) const {
  const mkey::MkeySettings& s = mkeys_.settings();
  // Nothing configured and no key seen: every port has key 0 as far as we know.
  if (!s.lookup || !mkeys_.in_use()) return s.m_key;
  return mkeys_.key_for(
      mkey::target_port(target, building_, fabric_, lid_index_, mkeys_.neighbors()));
}

void SubnetManager::learn_mkey(const Node& node, PortNum port) {
  const Port& p = node.ports[port];
  mkeys_.learn(p.guid, p.info, node.is_switch() ? port == 0 : port != 0);
}

void SubnetManager::mkey_hint(const mad::SmpOutcome& o) const {
  // OpenSM's ERR 3119/3120: with keys in play a lost request may be a port dropping it.
  if (o.failure == nullptr || o.failure->kind != mad::SmpFailure::Kind::kTimeout ||
      !mkeys_.in_use())
    return;
  const bool set = o.request.method == mad::Method::kSet;
  log_->error("{}: {} {}: no answer with M_Key 0x{:016x}; possible mis-set M_Key?",
              format_error_id(set ? mkey::kErrMkeySetFailed : mkey::kErrMkeyGetFailed),
              set ? "Set failed:" : "Timeout while getting:", o.request.describe(),
              o.request.m_key != 0 ? o.request.m_key : resolve_mkey(o.request.target));
}

mkey::SmInfoAccess SubnetManager::own_sminfo_access(const mad::Smp& req) const {
  if (fabric_.sm_node == kNoNode || fabric_.sm_node >= fabric_.size())
    return mkey::SmInfoAccess::kAnswer;
  const Node& own = fabric_.node(fabric_.sm_node);
  if (fabric_.sm_port >= own.ports.size()) return mkey::SmInfoAccess::kAnswer;
  const mad::PortInfo& pi = own.ports[fabric_.sm_port].info;
  return mkey::sminfo_access(req.method(), pi.m_key, pi.m_key_protect_bits, req.m_key());
}

}  // namespace ibsm::sm
