// The SM's side of the operator seam: the books it keeps, the events it emits and the
// OpsSnapshot it publishes (sm/publish/ops_seam.hpp).
#include "sm/publish/ops_seam.hpp"

#include <spdlog/fmt/fmt.h>

#include "ops/errors.hpp"

namespace ibsm::sm::publish {

namespace {

std::string mgid_text(const sa::Gid& g) {
  std::string out;
  for (std::size_t i = 0; i < g.size(); i += 2) {
    if (i) out += ':';
    out += fmt::format("{:04x}", (g[i] << 8) | g[i + 1]);
  }
  return out;
}

std::vector<ops::EventField> sweep_mad_fields(const mad::SmpCounters& m) {
  return {{"mads_sent", m.sent},
          {"mads_received", m.received},
          {"mads_timeouts", m.timeouts},
          {"mads_retries", m.retries}};
}

}  // namespace

void OpsSeam::publish(ops::OpsSnapshot live, const conf::Options& options) {
  auto s = std::make_shared<ops::OpsSnapshot>(std::move(live));
  s->generation = ++ops_generation_;
  s->published = std::chrono::system_clock::now();
  s->started = started_;
  s->version = version_;
  s->sweeps = sweeps_;
  s->heavy_sweeps = heavy_sweeps_;
  s->recent_sweeps.assign(recent_sweeps_.begin(), recent_sweeps_.end());
  s->last_subnet_up = last_subnet_up_;
  s->sweep_durations = sweep_durations_;
  s->routing = routing_outcome_;
  s->mcast_groups.clear();
  for (const auto& [mlid, g] : mcast_known_)
    s->mcast_groups.push_back(g);
  s->partitions = partitions_status_;
  s->cabling = cabling_;
  s->health = health_;
  if (!options_shared_ || !(*options_shared_ == options))
    options_shared_ = std::make_shared<const conf::Options>(options);
  s->options = options_shared_;
  ops_.snapshot.publish(std::move(s));
}

void OpsSeam::release_big_fabric() {
  auto cur = ops_.snapshot.current();
  if (!cur || !cur->fabric || cur->fabric->nodes.size() <= ops::OpsSnapshot::kBigFabricNodes)
    return;
  auto copy = std::make_shared<ops::OpsSnapshot>(*cur);
  copy->fabric.reset();
  ops_.snapshot.publish(std::move(copy));
}

OpsSeam::SysTime OpsSeam::sweep_started(ops::SweepKind kind, std::string_view reason) {
  emit(ops::EventType::kSweepStarted, {{"sweep", sweeps_ + 1},
                                       {"kind", std::string(ops::sweep_kind_name(kind))},
                                       {"reason", std::string(reason)}});
  return std::chrono::system_clock::now();
}

void OpsSeam::record_sweep(ops::SweepKind kind, std::string reason, const SweepOutcome& r,
                           SysTime started) {
  ops::SweepRecord rec;
  rec.number = ++sweeps_;
  if (kind != ops::SweepKind::kLight) ++heavy_sweeps_;
  rec.kind = kind;
  rec.reason = std::move(reason);
  rec.started = started;
  rec.seconds = r.seconds;
  rec.mads = r.mads;
  rec.subnet_up = r.subnet_up;
  rec.standby = r.standby;
  rec.problems = r.problems;
  rec.nodes = r.nodes;
  rec.switches = r.switches;
  rec.end_ports = r.end_ports;
  sweep_durations_[static_cast<std::size_t>(kind)].observe(r.seconds);
  if (r.subnet_up && kind != ops::SweepKind::kLight)
    last_subnet_up_ = std::chrono::system_clock::now();
  std::vector<ops::EventField> f = {{"sweep", rec.number},
                                    {"kind", std::string(ops::sweep_kind_name(kind))},
                                    {"reason", rec.reason},
                                    {"seconds", rec.seconds},
                                    {"subnet_up", rec.subnet_up},
                                    {"standby", rec.standby},
                                    {"problems", static_cast<std::uint64_t>(rec.problems)}};
  for (auto& m : sweep_mad_fields(rec.mads))
    f.push_back(std::move(m));
  if (kind != ops::SweepKind::kLight) {
    f.push_back({"nodes", static_cast<std::uint64_t>(rec.nodes)});
    f.push_back({"switches", static_cast<std::uint64_t>(rec.switches)});
    f.push_back({"end_ports", static_cast<std::uint64_t>(rec.end_ports)});
  }
  emit(ops::EventType::kSweepFinished, std::move(f));
  recent_sweeps_.push_back(std::move(rec));
  while (recent_sweeps_.size() > ops::OpsSnapshot::kRecentSweeps)
    recent_sweeps_.pop_front();
  answer_sweep_waiters(r, kind);
}

void OpsSeam::answer_sweep_waiters(const SweepOutcome& r, ops::SweepKind kind) {
  if (sweep_waiters_.empty()) return;
  std::vector<SweepWaiter> keep;
  for (SweepWaiter& w : sweep_waiters_) {
    // A heavy request is answered by a heavy (or targeted/reroute) sweep; a light one by any.
    if (w.heavy && kind == ops::SweepKind::kLight) {
      keep.push_back(std::move(w));
      continue;
    }
    ops::ControlReply reply;
    reply.ok = r.subnet_up || r.standby;
    reply.text = fmt::format("{} sweep {} done in {:.3f} s: {}; MADs sent {}, received {}",
                             ops::sweep_kind_name(kind), sweeps_, r.seconds,
                             r.standby     ? "stopped by the election (another SM is master)"
                             : r.subnet_up ? "subnet up"
                                           : fmt::format("{} problems", r.problems),
                             r.mads.sent, r.mads.received);
    if (!reply.ok) reply.error_id = ops::kErrSweepFailed.code;
    w.reply(std::move(reply));
  }
  sweep_waiters_ = std::move(keep);
}

void OpsSeam::note_routing(const std::string& engine, const std::vector<std::string>& chain,
                           double ms, const routing::RouteReport* grade) {
  if (grade == nullptr) {
    routing_outcome_ = {};
    routing_outcome_.engine = engine;
    routing_outcome_.chain = chain;
    routing_outcome_.fallback = !chain.empty() && engine != chain.front();
    routing_outcome_.ms = ms;
    routing_outcome_.when = std::chrono::system_clock::now();
    return;
  }
  ops::RoutingOutcome& o = routing_outcome_;
  o.graded = true;
  o.pairs = grade->pairs;
  o.unreachable = grade->unreachable;
  o.loops = grade->loops;
  o.acyclic = grade->acyclic();
  o.max_efi = grade->max_efi;
  o.mean_efi = grade->mean_efi;
  emit(ops::EventType::kRouting, {{"engine", o.engine},
                                  {"fallback", o.fallback},
                                  {"ms", o.ms},
                                  {"pairs", o.pairs},
                                  {"unreachable", o.unreachable},
                                  {"loops", o.loops},
                                  {"acyclic", o.acyclic},
                                  {"max_efi", o.max_efi},
                                  {"mean_efi", o.mean_efi}});
}

void OpsSeam::partitions_file(std::string file) {
  partitions_status_.file = std::move(file);
  partitions_status_.when = std::chrono::system_clock::now();
}

void OpsSeam::partitions_reloaded(std::string file, bool ok, std::vector<std::string> errors,
                                  std::size_t partitions) {
  partitions_status_.file = std::move(file);
  partitions_status_.ok = ok;
  partitions_status_.errors = std::move(errors);
  partitions_status_.partitions = partitions;
  partitions_status_.when = std::chrono::system_clock::now();
  emit(ops::EventType::kPartitionsReloaded,
       {{"file", partitions_status_.file},
        {"ok", ok},
        {"partitions", static_cast<std::uint64_t>(partitions_status_.partitions)},
        {"errors", static_cast<std::uint64_t>(partitions_status_.errors.size())}});
}

void OpsSeam::cabling_status(ops::CablingStatusPtr s, bool checked, const std::string& kinds) {
  if (!s) return;
  cabling_ = std::move(s);
  if (!checked || cabling_->deviations == cabling_reported_) return;
  cabling_reported_ = cabling_->deviations;
  emit(ops::EventType::kTopologyDeviation,
       {{"deviations", static_cast<std::uint64_t>(cabling_->deviations.size())},
        {"degraded", static_cast<std::uint64_t>(cabling_->degraded.size())},
        {"kinds", kinds},
        {"file", cabling_->file}});
}

void OpsSeam::report_fabric_changes(const sa::Snapshot& snap) {
  ops::PortIndex now = ops::index_ports(snap);
  for (ops::FabricChange& c : ops::diff_fabric(port_index_, now))
    emit(c.type, std::move(c.fields));
  port_index_ = std::move(now);
}

bool OpsSeam::observe_groups(const sa::McGroupStore& groups) {
  // Joins and leaves are handled by the SA between polls; the store counts every change.
  if (groups.changes_seen() == mcast_changes_seen_ && groups.groups().size() == mcast_known_.size())
    return false;
  mcast_changes_seen_ = groups.changes_seen();
  std::map<mad::Lid, ops::McastGroupInfo> now;
  for (const auto& [mgid, g] : groups.groups()) {
    ops::McastGroupInfo& i = now[g.mlid];
    if (i.mlid == 0) i = {g.mlid, mgid_text(mgid), g.pkey, 0};
    i.members += g.members.size();
  }
  for (const auto& [mlid, g] : now)
    if (!mcast_known_.contains(mlid))
      emit(ops::EventType::kMcastGroupCreated, {{"mlid", static_cast<std::uint64_t>(mlid)},
                                                {"mgid", g.mgid},
                                                {"pkey", fmt::format("0x{:04x}", g.pkey)}});
  for (const auto& [mlid, g] : mcast_known_)
    if (!now.contains(mlid))
      emit(ops::EventType::kMcastGroupDeleted,
           {{"mlid", static_cast<std::uint64_t>(mlid)}, {"mgid", g.mgid}});
  mcast_known_ = std::move(now);
  return true;
}

}  // namespace ibsm::sm::publish
