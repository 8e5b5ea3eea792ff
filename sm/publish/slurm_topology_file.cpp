// slurm_topology_file (sm/publish/slurm_topology_file.hpp).
#include "sm/publish/slurm_topology_file.hpp"

#include <chrono>

#include <spdlog/fmt/fmt.h>

#include "common/atomic_file.hpp"
#include "ops/slurm_fabric.hpp"
#include "slurm/render.hpp"
#include "sm/errors.hpp"

namespace ibsm::sm::publish {

bool SlurmTopologyFile::update(const std::string& path,
                               const std::shared_ptr<const sa::Snapshot>& fabric,
                               const names::NodeNameMap* names) {
  if (path.empty() || !fabric) return false;
  const auto t0 = std::chrono::steady_clock::now();
  const slurm::Options options;  // rail 0, every host
  const slurm::Topology t = slurm::build_topology(ops::slurm_fabric(*fabric, names), options);
  if (t.switches.empty()) {
    // Slurm stops on a topology.conf without switches ("No switches configured"): the
    // last file stays until the fabric has hosts again.
    log_->warn("slurm_topology_file {}: no host Slurm can name in the fabric; not written", path);
    return false;
  }
  std::string text = slurm::topology_conf(t, slurm::describe(options));
  if (path != path_) {
    path_ = path;
    auto on_disk = read_file(path);
    written_ = on_disk ? std::move(*on_disk) : std::string();
  }
  if (text == written_) return false;
  if (auto st = write_file_atomically(path, text); !st) {
    log_->error("{}: slurm_topology_file {} not written: {}",
                format_error_id(kErrSlurmTopologyWrite), path, st.error().message);
    return false;
  }
  written_ = std::move(text);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  log_->info("slurm_topology_file {} written: {} hosts, {} switches, top {} ({:.1f} ms)", path,
             t.hosts, t.switches.size(),
             t.top() == slurm::kNoSwitch ? std::string("none") : t.switches[t.top()].name, ms);
  return true;
}

}  // namespace ibsm::sm::publish
