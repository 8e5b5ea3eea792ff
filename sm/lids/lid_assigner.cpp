// LID assignment as a sweep step: guid2lid kept, loaded and saved, LIDs written into
// the sweep's model (sm/lids/lid_assigner.hpp).
#include "sm/lids/lid_assigner.hpp"

#include <sys/stat.h>
#include <algorithm>
#include <cerrno>
#include <vector>

#include "common/atomic_file.hpp"
#include "sm/errors.hpp"
#include "sm/lids/lid_manager.hpp"

namespace ibsm::sm::lids {

void LidAssigner::load(const std::string& cache_dir) {
  const std::string path = cache_dir + "/guid2lid";
  auto text = read_file(path);
  if (!text.ok()) {
    if (errno != ENOENT) {
      log_->warn("{}: {}", format_error_id(kErrGuid2LidRead), text.error().message);
    }
    return;
  }
  auto parsed = parse_guid2lid(*text);
  for (const auto& w : parsed.warnings)
    log_->warn("{}: {}: {}", format_error_id(kErrGuid2LidRead), path, w);
  guid2lid_ = std::move(parsed.db);
  log_->info("loaded {} LID records from {}", guid2lid_.size(), path);
}

void LidAssigner::save(const SweepContext& ctx) {
  if (!dirty_) return;
  const std::string dir = ctx.options.cache_dir;
  const std::string path = dir + "/guid2lid";
  const bool durable = ctx.options.fsync_high_avail_files;
  // The write and its fsync (3-20 ms under load) run on the runner's thread while the
  // SMPs already queued keep flowing; it gets copies, never guid2lid_ itself.
  const std::string text = format_guid2lid(guid2lid_);
  Status st;
  ctx.run_pure([&st, &dir, &path, &text, durable] {
    ::mkdir(dir.c_str(), 0755);
    st = write_file_atomically(path, text, durable);
  });
  if (!st.ok()) {
    log_->error("{}: {}", format_error_id(kErrGuid2LidWrite), st.error().message);
    return;
  }
  dirty_ = false;
}

LidResult LidAssigner::assign(SweepContext& ctx, const LidInputs& in) {
  Fabric& f = ctx.fabric;
  const conf::Options& o = ctx.options;
  LidResult result;
  std::vector<LidRequest> requests;
  const auto holders = f.lid_holders();
  Lid max_lid = mad::kMaxUnicastLid;
  for (const Node& n : f.nodes()) {
    if (n.switch_info && n.switch_info->linear_fdb_cap > 0)
      max_lid = std::min<Lid>(max_lid, static_cast<Lid>(n.switch_info->linear_fdb_cap - 1));
  }
  for (const auto& h : holders) {
    const Node& n = f.node(h.node);
    const Port& p = n.ports[h.port];
    LidRequest r;
    r.guid = p.guid;
    r.current = p.info.lid;
    r.lmc =
        port_lmc(n.is_switch(), n.switch_info && n.switch_info->enhanced_port0, o.lmc, o.lmc_esp0);
    r.is_sm_port = h.node == f.sm_node && h.port == f.sm_port;
    requests.push_back(r);
  }
  LidPolicy policy;
  policy.reassign = o.reassign_lids && ctx.first_master_sweep;
  policy.guid2lid_first = o.honor_guid2lid_file && in.coming_out_of_standby;
  policy.max_lid = max_lid;
  auto lids = sm::assign_lids(requests, guid2lid_, policy);
  if (!lids.ok()) {
    lid_log_->error("{}: {}", format_error_id(lids.error().id), lids.error().message);
    ctx.report.add(lids.error().id, lids.error().message);
    return result;
  }
  for (std::size_t i = 0; i < holders.size(); ++i) {
    Port& p = f.node(holders[i].node).ports[holders[i].port];
    p.lid = (*lids)[i];
    p.lmc = requests[i].lmc;
    const LidRange range{p.lid, static_cast<Lid>(p.lid + (1u << p.lmc) - 1)};
    auto it = guid2lid_.find(p.guid);
    if (it == guid2lid_.end() || !(it->second == range)) {
      guid2lid_[p.guid] = range;
      dirty_ = true;
    }
    if (requests[i].is_sm_port) result.sm_lid = p.lid;
  }
  result.ok = true;
  return result;
}

}  // namespace ibsm::sm::lids
