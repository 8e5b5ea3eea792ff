// The QoS policy file in the SM: read at start and on SIGHUP (a file that does not
// parse changes nothing), compiled for each SA snapshot's fabric (qos_policy/).
#include <chrono>
#include <filesystem>

#include "partitions/gid.hpp"
#include "qos_policy/compile.hpp"
#include "qos_policy/errors.hpp"
#include "qos_policy/fabric_view.hpp"
#include "qos_policy/multicast_sl.hpp"
#include "qos_policy/parser.hpp"
#include "sa/path_resolver.hpp"
#include "sa/qos_view.hpp"
#include "sm/qos/policy_setup.hpp"
#include "sm/subnet_manager.hpp"

namespace ibsm::sm {

namespace {

// Logs what compiling the policy found, unless it is what was logged last time (each
// finding once, not every sweep).
void log_notes(Logger& log, const std::string& file,
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

bool SubnetManager::reload_qos_policy() {
  const std::string& path = options_.qos_policy_file;
  if (!options_.qos) {
    if (qos_policy_ || path != kDefaultPolicyFile)
      log_->warn("{}: qos_policy_file {} is not read: qos is off (-Q turns it on)",
                 format_error_id(qos_policy::kPolicyWithoutQos), path);
    qos_policy_.reset();
    return true;
  }
  if (path.empty() || path == "(null)") {
    qos_policy_.reset();
    return true;
  }
  std::error_code ec;
  if (path == kDefaultPolicyFile && !std::filesystem::exists(path, ec)) {
    if (qos_policy_) log_->info("QoS policy file {} is gone; no QoS policy in force", path);
    qos_policy_.reset();
    return true;
  }
  auto parsed = qos_policy::load_policy_file(path);
  if (!parsed) {
    log_->error("{}", qos_policy::format_error(parsed.error(), path));
    if (qos_policy_) {
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
  qos_policy_ = std::make_shared<const qos_policy::Policy>(std::move(*parsed));
  qos_policy_notes_.clear();
  qos_setup_notes_.clear();
  qos_policy_engine_logged_ = false;
  return true;
}

void SubnetManager::attach_qos_policy(sa::Snapshot& snap) {
  if (!options_.qos || !qos_policy_ || !snap.path_tables) return;
  const auto t0 = std::chrono::steady_clock::now();
  const sa::PathTables& t = *snap.path_tables;
  qos_policy::FabricView view = sa::qos_fabric_view(snap, t);
  qos_policy::add_partitions(view, partitions_.resolved(), partitions_.last_plan().membership);

  std::vector<qos_policy::CompileNote> notes;
  auto compiled = qos_policy::compile(qos_policy_, view, notes);
  log_notes(log_, options_.qos_policy_file, notes, qos_policy_notes_);
  if (!compiled) return;
  if (!snap.path_sl.empty() && !qos_policy_engine_logged_) {
    const unsigned free = snap.path_sl.requester_bits & 0x0f;
    log_->warn(
        "{}: the routing engine assigns per-path SLs and the QoS policy gives SLs too: the "
        "engine wins on SL bits 0x{:x} (deadlock freedom needs them, as with OpenSM's path_sl "
        "hook); the policy's SL decides {}",
        format_error_id(qos_policy::kPolicyEngineSl), 0x0f & ~free,
        free == 0 ? std::string("nothing")
                  : "bits 0x" + fmt::format("{:x}", free) + " (the QoS level bits)");
    qos_policy_engine_logged_ = true;
  }
  snap.qos_policy = std::make_shared<const qos_policy::CompiledPolicy>(std::move(*compiled));
  apply_policy_to_groups(snap);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  log_->debug("QoS policy compiled for {} ports in {:.1f} ms: {} port signatures, {} candidates",
              t.ports.size(), ms, snap.qos_policy->signatures(),
              snap.qos_policy->candidate_entries());
}

// The policy decides the SL of partitions.conf's multicast groups, over the partition's
// SL, as it does for PathRecords (qos_policy/multicast_sl.hpp says why and which rules
// count). Each change from the partition's SL is logged once per policy and fabric.
void SubnetManager::apply_policy_to_groups(sa::Snapshot& snap) {
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
        partitions::format_gid(g.mgid), g.pkey, m->sl, options_.qos_policy_file, rule.pos.line,
        rule.ulp.empty() ? "" : ", qos-ulps ", rule.ulp, g.sl));
    text += lines.back() + "\n";
    g.sl = m->sl;
  }
  if (text == qos_policy_mcast_notes_) return;
  qos_policy_mcast_notes_ = text;
  for (const auto& line : lines)
    log_->info("{}", line);
}

void SubnetManager::update_qos_setup(const Fabric& f) {
  qos_.overrides.reset();
  if (!qos_.enabled || !qos_policy_) return;
  std::vector<qos_policy::CompileNote> notes;
  qos_.overrides = qos::policy_setup(f, qos_, qos_policy_, partitions_.resolved(),
                                     partitions_.last_plan().membership, notes);
  // The fabric-wide findings (IPoIB partitions) are the SA side's to log; here only
  // what qos-setup adds.
  std::vector<qos_policy::CompileNote> own;
  for (auto& n : notes) {
    if (n.message.rfind("vlarb-scope", 0) == 0 || n.message.rfind("sl2vl-scope", 0) == 0)
      own.push_back(std::move(n));
  }
  log_notes(log_, options_.qos_policy_file, own, qos_setup_notes_);
}

}  // namespace ibsm::sm
