// The M_Keys the SM presents and programs (IBA 14.2.4), as OpenSM manages them:
// one configured key (m_key) for the whole subnet, written with the protection
// level and lease into every CA/router port and switch port 0; the key each port
// holds now, learned from its PortInfo answers and from our accepted Sets, kept in
// guid2mkey across restarts. m_key 0 (the default) turns programming off: ports keep
// whatever they hold and requests carry the keys known for them (0 for all on a
// fabric nobody protected).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/log.hpp"
#include "common/result.hpp"
#include "conf/options.hpp"
#include "mad/attr/port_info.hpp"
#include "sm/mkey/guid2mkey.hpp"
#include "sm/mkey/neighbors.hpp"

namespace ibsm::sm::mkey {

struct MkeySettings {
  std::uint64_t m_key = 0;         // m_key: the subnet's key; 0 = M_Key not managed
  std::uint8_t protect_bits = 0;   // m_key_protection_level after OpenSM's adjustment
  std::uint16_t lease_period = 0;  // m_key_lease_period (s) after OpenSM's adjustment
  bool lookup = true;              // m_key_lookup: per-port keys from guid2mkey

  bool managed() const { return m_key != 0; }
};

// The settings from the options, with OpenSM's adjustments (level > 3 -> 2; a lease
// not longer than the sweep interval raised to sweep_interval + 1). Each adjustment
// is logged when `log` is given.
MkeySettings mkey_settings(const conf::Options& o, const Logger* log = nullptr);

class MkeyManager {
 public:
  explicit MkeyManager(Logger log) : log_(std::move(log)) {}

  void set_settings(const MkeySettings& s) { settings_ = s; }
  const MkeySettings& settings() const { return settings_; }

  // guid2mkey: read at start (bad lines warned and skipped), written after every
  // completed heavy sweep, atomically and with mode 0600 (it holds keys).
  void load(const std::string& path);
  Status save(const std::string& path, bool durable);
  // The neighbors cache likewise (same directory, same times).
  void load_neighbors(const std::string& path);
  Status save_neighbors(const std::string& path, bool durable);

  // The key a request to port `guid` (a CA/router port or a switch's port 0) carries:
  // with m_key_lookup the port's known key, else m_key; without lookup always m_key.
  // nullopt guid: a port the SM cannot name yet.
  std::uint64_t key_for(std::optional<mad::Guid> guid) const;

  // A PortInfo GetResp of a port: keeps its key when it can be trusted (mkey_rules.hpp)
  // and reports (info) a port that hides its key.
  void learn(mad::Guid guid, const mad::PortInfo& pi, bool lid_holder);
  // A Set carrying `key` was accepted: the port holds it now.
  void set_accepted(mad::Guid guid, std::uint64_t key);

  // Whether a lost request may be a key problem (keys configured or seen): failures
  // then get OpenSM's "possible mis-set mkey" hint.
  bool in_use() const { return settings_.managed() || nonzero_known_ > 0; }
  const Guid2Mkey& known() const { return known_; }
  // Links as discovery found them, both directions (switch ports: the switch's GUID).
  void record_link(const PortEnd& a, const PortEnd& b);
  const Neighbors& neighbors() const { return neighbors_; }
  bool neighbors_dirty() const { return neighbors_dirty_; }
  // Something learned or programmed since the last save (guid2mkey is rewritten then).
  bool dirty() const { return dirty_; }

 private:
  void remember(mad::Guid guid, std::uint64_t key);

  Logger log_;
  MkeySettings settings_;
  Guid2Mkey known_;
  std::size_t nonzero_known_ = 0;
  bool dirty_ = false;
  Neighbors neighbors_;
  bool neighbors_dirty_ = false;
};

}  // namespace ibsm::sm::mkey
