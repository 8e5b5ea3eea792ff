// The M_Key seam of the sweeps (IBA 14.2.4, as OpenSM manages keys): the key store
// (key_manager.hpp) with the settings from the options, guid2mkey and the neighbors
// cache on disk, the key each SMP carries (the SmpClient's resolver: the port it is
// checked against, found in the fabric being discovered, the last one or the cache),
// what PortInfo answers teach, OpenSM's "possible mis-set M_Key" hint on lost
// requests, and the rule our own port's key applies to SMInfo requests.
//
// Everything here runs on the SM's thread: the resolver is called when an SMP is
// sent, and the fabric being discovered is only ever read there.
#pragma once

#include <cstdint>
#include <string>

#include "common/log.hpp"
#include "conf/options.hpp"
#include "mad/smp.hpp"
#include "mad/smp_client.hpp"
#include "sm/fabric/fabric.hpp"
#include "sm/mkey/key_manager.hpp"
#include "sm/mkey/mkey_rules.hpp"
#include "sm/mkey/target_port.hpp"

namespace ibsm::sm::mkey {

class SweepKeys {
 public:
  // `log`: the SM's lines about keys; `key_log`: the key store's (the mkey module).
  SweepKeys(Logger log, Logger key_log) : log_(std::move(log)), keys_(std::move(key_log)) {}

  // The m_key* keys with OpenSM's adjustments. Protected leases need sweeps: a
  // disabled sweep (sweep_interval 0) is turned back on in `o` (lease - 1 s), logged.
  void apply_options(conf::Options& o);
  // <cache_dir>/guid2mkey and <cache_dir>/neighbors, at start (bad lines warned).
  void load(const std::string& cache_dir);
  // The links of `last` into the neighbors cache, then both files rewritten when they
  // changed (mode 0600, fsync with `durable`); a failed write is logged (IBSM-2404).
  void save(const Fabric& last, const std::string& cache_dir, bool durable);

  // The fabric a heavy sweep is discovering (null: none), searched first for the
  // port a DR path reaches. Must stay valid until reset to null.
  void set_building(const Fabric* f) { building_ = f; }
  // After a sweep: the LIDs of its fabric, for LID-routed SMPs.
  void index_lids(const Fabric& last) { lids_ = mkey::index_lids(last); }

  // The key an SMP to `target` carries (the SmpClient's resolver); `last`: the last
  // sweep's fabric.
  std::uint64_t resolve(const mad::SmpTarget& target, const Fabric& last) const;
  // A PortInfo answer discovery read: the port's key when it can be trusted.
  void learn(const Node& node, PortNum port);
  // A Set carrying `key` was accepted by port `guid`: requests now carry it.
  void set_accepted(Guid guid, std::uint64_t key) { keys_.set_accepted(guid, key); }
  // OpenSM's ERR 3119/3120: a request lost while keys are in play may be a port
  // dropping it; logged (IBSM-2401/2402) with the key it carried.
  void hint(const mad::SmpOutcome& o, const Fabric& last) const;
  // Whether our own port (in `last`) lets an SMInfo request in (IBA C14-67).
  SmInfoAccess own_sminfo_access(const mad::Smp& req, const Fabric& last) const;

  const MkeyManager& keys() const { return keys_; }
  const MkeySettings& settings() const { return keys_.settings(); }

 private:
  Logger log_;
  MkeyManager keys_;
  const Fabric* building_ = nullptr;  // the heavy sweep's fabric while it is discovered
  LidIndex lids_;                     // LIDs of the last fabric
};

}  // namespace ibsm::sm::mkey
