#include "sm/mkey/key_manager.hpp"

#include <cerrno>

#include "common/atomic_file.hpp"
#include "sm/mkey/errors.hpp"
#include "sm/mkey/mkey_rules.hpp"

namespace ibsm::sm::mkey {

MkeySettings mkey_settings(const conf::Options& o, const Logger* log) {
  MkeySettings s;
  s.m_key = o.m_key;
  s.lookup = o.m_key_lookup;
  s.protect_bits = effective_protection_level(o.m_key_protection_level);
  if (log != nullptr && s.protect_bits != o.m_key_protection_level) {
    (*log)->warn("m_key_protection_level {} is not 0-3; using {} (as OpenSM)",
                 o.m_key_protection_level, s.protect_bits);
  }
  s.lease_period = effective_lease_period(s.protect_bits, o.m_key_lease_period, o.sweep_interval);
  if (log != nullptr && s.lease_period != o.m_key_lease_period) {
    (*log)->warn(
        "sweep interval {} s >= m_key_lease_period {} s: lease period set to {} s (as OpenSM), "
        "so the SM comes by before protected ports drop their protection",
        o.sweep_interval, o.m_key_lease_period, s.lease_period);
  }
  return s;
}

void MkeyManager::load(const std::string& path) {
  auto text = read_file(path);
  if (!text.ok()) {
    if (errno != ENOENT)
      log_->warn("{}: {}", format_error_id(kErrGuid2MkeyRead), text.error().message);
    return;
  }
  auto parsed = parse_guid2mkey(*text, path);
  for (const auto& w : parsed.warnings)
    log_->warn("{}: {}", format_error_id(kErrGuid2MkeyRead), w);
  known_.clear();
  nonzero_known_ = 0;
  for (const auto& [guid, key] : parsed.db)
    remember(guid, key);
  dirty_ = false;  // the file holds exactly this
  log_->info("loaded {} M_Key records from {}", known_.size(), path);
}

Status MkeyManager::save(const std::string& path, bool durable) {
  Status st = write_file_atomically(path, format_guid2mkey(known_), durable, {}, 0600);
  if (st.ok()) dirty_ = false;
  return st;
}

void MkeyManager::load_neighbors(const std::string& path) {
  auto text = read_file(path);
  if (!text.ok()) {
    if (errno != ENOENT)
      log_->warn("{}: {}", format_error_id(kErrGuid2MkeyRead), text.error().message);
    return;
  }
  auto parsed = parse_neighbors(*text, path);
  for (const auto& w : parsed.warnings)
    log_->warn("{}: {}", format_error_id(kErrGuid2MkeyRead), w);
  neighbors_ = std::move(parsed.db);
  neighbors_dirty_ = !parsed.warnings.empty();  // rewrite without the bad records
}

Status MkeyManager::save_neighbors(const std::string& path, bool durable) {
  Status st = write_file_atomically(path, format_neighbors(neighbors_), durable);
  if (st.ok()) neighbors_dirty_ = false;
  return st;
}

void MkeyManager::record_link(const PortEnd& a, const PortEnd& b) {
  for (const auto& [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
    auto [it, inserted] = neighbors_.try_emplace(from, to);
    if (!inserted && it->second == to) continue;
    if (!inserted) {
      neighbors_.erase(it->second);  // the old peer's record points back at us no more
      it->second = to;
    }
    neighbors_dirty_ = true;
  }
}

std::uint64_t MkeyManager::key_for(std::optional<mad::Guid> guid) const {
  if (!settings_.lookup || !guid) return settings_.m_key;
  auto it = known_.find(*guid);
  return it == known_.end() ? settings_.m_key : it->second;
}

void MkeyManager::remember(mad::Guid guid, std::uint64_t key) {
  auto [it, inserted] = known_.try_emplace(guid, key);
  if (!inserted) {
    if (it->second == key) return;
    if (it->second != 0) --nonzero_known_;
    it->second = key;
  }
  if (key != 0) ++nonzero_known_;
  dirty_ = true;
}

void MkeyManager::learn(mad::Guid guid, const mad::PortInfo& pi, bool lid_holder) {
  if (!lid_holder || guid == 0) return;
  if (key_unknown(pi)) {
    log_->info("port {} has unknown M_Key, protection level {}", mad::format_guid(guid),
               pi.m_key_protect_bits);
  }
  if (key_read_is_trustworthy(lid_holder, pi)) remember(guid, pi.m_key);
}

void MkeyManager::set_accepted(mad::Guid guid, std::uint64_t key) {
  if (guid != 0) remember(guid, key);
}

}  // namespace ibsm::sm::mkey
