// QoS as the SM keeps it between sweeps: the opensm.conf qos settings resolved per port
// class (sm/qos/qos_config.hpp), long_transaction_timeout, and the QoS policy file
// (qos_policy_file: read at start and on SIGHUP, as a whole or not at all), compiled
// for each SA snapshot's fabric and turned into per-port tables (qos-setup) for each
// heavy sweep's SL2VL, VLArbitration and VLHighLimit programming. What compiling
// finds is logged when it changes, not every sweep.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "common/log.hpp"
#include "conf/options.hpp"
#include "partitions/membership.hpp"
#include "partitions/resolve.hpp"
#include "qos_policy/model.hpp"
#include "sa/snapshot.hpp"
#include "sm/fabric/fabric.hpp"
#include "sm/qos/qos_config.hpp"

namespace ibsm::sm::qos {

// The partitions the policy's port groups and qos-setup may name (the partition
// manager's resolved partitions.conf and its last membership plan).
struct PartitionView {
  const partitions::ResolvedConfig& config;
  const partitions::MembershipResult& membership;
};

class QosState {
 public:
  explicit QosState(Logger log) : log_(std::move(log)) {}

  // qos and the qos_* keys, and long_transaction_timeout (at least transaction_timeout:
  // a smaller value is raised with a warning, as OpenSM). At start and on SIGHUP.
  void apply_options(const conf::Options& o);
  // Re-reads o.qos_policy_file (with qos on). A file that does not parse is logged with
  // file:line:column and the last good policy stays: false. qos off, no file, or
  // OpenSM's default path absent: no policy, true.
  bool reload_policy(const conf::Options& o);
  // Compiles the policy for the snapshot's fabric and attaches it (the SA's PathRecord
  // and MultiPathRecord answers follow it); it also decides the SL of partitions.conf's
  // multicast groups. Nothing without qos, a policy or the snapshot's path tables.
  void attach_policy(sa::Snapshot& snap, const conf::Options& o, const PartitionView& parts);
  // The policy's qos-setup as per-port overrides of config(), for this heavy sweep's
  // SL2VL, VLArbitration and VLHighLimit programming of `f`.
  void update_setup(const Fabric& f, const conf::Options& o, const PartitionView& parts);

  const QosConfig& config() const { return config_; }
  // long_transaction_timeout: what optimized SL2VL Sets wait.
  std::chrono::milliseconds long_timeout() const { return long_timeout_; }
  const std::shared_ptr<const qos_policy::Policy>& policy() const { return policy_; }

 private:
  void apply_policy_to_groups(sa::Snapshot& snap, const std::string& file);

  Logger log_;
  QosConfig config_;  // opensm.conf qos and the qos_* keys, resolved per port class
  std::shared_ptr<const qos_policy::Policy> policy_;  // last good policy file, or none
  std::string policy_notes_;       // what compiling it last logged (logged on change)
  std::string setup_notes_;        // the same for its qos-setup
  std::string mcast_notes_;        // the multicast SLs it set (logged on change)
  bool engine_sl_logged_ = false;  // the engine-vs-policy SL line, once per load
  std::chrono::milliseconds long_timeout_{500};
};

}  // namespace ibsm::sm::qos
