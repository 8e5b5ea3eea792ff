// QoS settings and the QoS policy file in the SM (sm/qos/qos_state.hpp).
#include "sm/qos/qos_state.hpp"

#include <chrono>
#include <filesystem>
#include <vector>

#include "conf/errors.hpp"
#include "partitions/gid.hpp"
#include "qos_policy/compile.hpp"
#include "qos_policy/errors.hpp"
#include "qos_policy/fabric_view.hpp"
#include "qos_policy/multicast_sl.hpp"
#include "qos_policy/parser.hpp"
#include "sa/path_resolver.hpp"
#include "sa/qos_view.hpp"
#include "sm/qos/policy_setup.hpp"

namespace ibsm::sm::qos {

namespace {

// Logs what compiling the policy found, unless it is what was logged last time (each
// finding once, not every sweep).
void log_policy_notes(Logger& log, const std::string& file,
                      const std::vector<qos_policy::CompileNote>& notes, std::string& last) {
  std::string text;
  for (const auto& n : notes) {
    text += format_error_id(ErrorId{n.id}) + ": " + file + ":" + std::to_string(n.pos.line) + ":" +
            std::to_string(n.pos.column) + ": " + n.message + "\n";
  }
  if (text == last) return;
  last = text;
  for (const auto& n : notes) {
    const std::string line = format_error_id(ErrorId{n.id}) + ": " + file + ":" +
                             std::to_string(n.pos.line) + ":" + std::to_string(n.pos.column) +
                             ": " + n.message;
    if (n.error) {
      log->error("{}; the QoS policy is not applied until this is fixed (as OpenSM)", line);
    } else {
      log->warn("{}", line);
    }
  }
}

// OpenSM's default path: its absence is not an error (OpenSM: "QoS policy file not
// found", verbose level), any other missing file is.
constexpr const char* kDefaultPolicyFile = "/etc/opensm/qos-policy.conf";

}  // namespace

void QosState::apply_options(const conf::Options& o) {
  config_ = qos_config(o);
  // OpenSM (osm_subnet.c osm_subn_verify_config): a long transaction is at least a normal
  // one; a smaller value is raised, with a warning.
  long_timeout_ = std::chrono::milliseconds(o.long_transaction_timeout);
  if (o.long_transaction_timeout < o.transaction_timeout) {
    log_->warn("{}: long_transaction_timeout {} is below transaction_timeout {}; using {}",
               format_error_id(conf::kBadValue), o.long_transaction_timeout, o.transaction_timeout,
               o.transaction_timeout);
    long_timeout_ = std::chrono::milliseconds(o.transaction_timeout);
  }
}

bool QosState::reload_policy(const conf::Options& o) {
  const std::string& path = o.qos_policy_file;
  if (!o.qos) {
    if (policy_ || path != kDefaultPolicyFile)
      log_->warn("{}: qos_policy_file {} is not read: qos is off (-Q turns it on)",
                 format_error_id(qos_policy::kPolicyWithoutQos), path);
    policy_.reset();
    return true;
  }
  if (path.empty() || path == "(null)") {
    policy_.reset();
    return true;
  }
  std::error_code ec;
  if (path == kDefaultPolicyFile && !std::filesystem::exists(path, ec)) {
    if (policy_) log_->info("QoS policy file {} is gone; no QoS policy in force", path);
    policy_.reset();
    return true;
  }
  auto parsed = qos_policy::load_policy_file(path);
  if (!parsed) {
    log_->error("{}", qos_policy::format_error(parsed.error(), path));
    if (policy_) {
      log_->error("QoS policy file {} refused; keeping the last good policy", path);
    } else {
      log_->error("QoS policy file {} refused; no QoS policy in force", path);
    }
    return false;
  }
  const qos_policy::Policy& p = *parsed;
  log_->info("QoS policy file {}: {} port groups, {} qos-levels, {} match rules, default level {}",
             path, p.groups.size(), p.levels.size(), p.rules.size(),
             p.levels[p.default_level].name);
  policy_ = std::make_shared<const qos_policy::Policy>(std::move(*parsed));
  policy_notes_.clear();
  setup_notes_.clear();
  engine_sl_logged_ = false;
  return true;
}

void QosState::attach_policy(sa::Snapshot& snap, const conf::Options& o,
                             const PartitionView& parts) {
  if (!o.qos || !policy_ || !snap.path_tables) return;
  const auto t0 = std::chrono::steady_clock::now();
  const sa::PathTables& t = *snap.path_tables;
  qos_policy::FabricView view = sa::qos_fabric_view(snap, t);
  qos_policy::add_partitions(view, parts.config, parts.membership);

  std::vector<qos_policy::CompileNote> notes;
  auto compiled = qos_policy::compile(policy_, view, notes);
  log_policy_notes(log_, o.qos_policy_file, notes, policy_notes_);
  if (!compiled) return;
  if (!snap.path_sl.empty() && !engine_sl_logged_) {
    const unsigned free = snap.path_sl.requester_bits & 0x0f;
    log_->warn(
        "{}: the routing engine assigns per-path SLs and the QoS policy gives SLs too: the "
        "engine wins on SL bits 0x{:x} (deadlock freedom needs them, as with OpenSM's path_sl "
        "hook); the policy's SL decides {}",
        format_error_id(qos_policy::kPolicyEngineSl), 0x0f & ~free,
        free == 0 ? std::string("nothing")
                  : "bits 0x" + fmt::format("{:x}", free) + " (the QoS level bits)");
    engine_sl_logged_ = true;
  }
  snap.qos_policy = std::make_shared<const qos_policy::CompiledPolicy>(std::move(*compiled));
  apply_policy_to_groups(snap, o.qos_policy_file);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  log_->debug("QoS policy compiled for {} ports in {:.1f} ms: {} port signatures, {} candidates",
              t.ports.size(), ms, snap.qos_policy->signatures(),
              snap.qos_policy->candidate_entries());
}

// The policy decides the SL of partitions.conf's multicast groups, over the partition's
// SL, as it does for PathRecords (qos_policy/multicast_sl.hpp says why and which rules
// count). Each change from the partition's SL is logged once per policy and fabric.
void QosState::apply_policy_to_groups(sa::Snapshot& snap, const std::string& file) {
  const qos_policy::Policy& policy = snap.qos_policy->policy();
  std::string text;
  std::vector<std::string> lines;
  for (sa::SnapGroup& g : snap.groups) {
    if (!g.well_known) continue;
    const auto m = qos_policy::multicast_sl(policy, g.pkey);
    if (!m || m->sl == g.sl) continue;
    const qos_policy::MatchRule& rule = policy.rules[m->rule];
    lines.push_back(fmt::format(
        "multicast group {} (P_Key 0x{:04x}): SL {} from the QoS policy ({}:{}{}{}) instead of "
        "partitions.conf's SL {}",
        partitions::format_gid(g.mgid), g.pkey, m->sl, file, rule.pos.line,
        rule.ulp.empty() ? "" : ", qos-ulps ", rule.ulp, g.sl));
    text += lines.back() + "\n";
    g.sl = m->sl;
  }
  if (text == mcast_notes_) return;
  mcast_notes_ = text;
  for (const auto& line : lines)
    log_->info("{}", line);
}

void QosState::update_setup(const Fabric& f, const conf::Options& o, const PartitionView& parts) {
  config_.overrides.reset();
  if (!config_.enabled || !policy_) return;
  std::vector<qos_policy::CompileNote> notes;
  config_.overrides = policy_setup(f, config_, policy_, parts.config, parts.membership, notes);
  // The fabric-wide findings (IPoIB partitions) are the SA side's to log; here only
  // what qos-setup adds.
  std::vector<qos_policy::CompileNote> own;
  for (auto& n : notes) {
    if (n.message.rfind("vlarb-scope", 0) == 0 || n.message.rfind("sl2vl-scope", 0) == 0)
      own.push_back(std::move(n));
  }
  log_policy_notes(log_, o.qos_policy_file, own, setup_notes_);
}

}  // namespace ibsm::sm::qos
