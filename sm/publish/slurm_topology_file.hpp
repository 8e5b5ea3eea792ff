// slurm_topology_file (issue 36): Slurm's topology.conf for topology/tree, rewritten
// atomically (common/atomic_file.hpp) after each heavy sweep that brings the subnet up
// when its text changes, so slurmctld can take it with `scontrol reconfigure`. The text
// is `ibsm-ctl topology`'s (slurm/render.hpp, no time stamp): rail 0 of each host, no
// filter. A file that already holds it (a restart) is left alone, and so is the file
// when the fabric has no host Slurm can name (Slurm refuses a topology.conf without
// switches). Takes the SA
// snapshot and the node name map; never the SubnetManager. SM thread only.
#pragma once

#include <memory>
#include <string>

#include "common/log.hpp"
#include "names/node_name_map.hpp"
#include "sa/snapshot.hpp"

namespace ibsm::sm::publish {

class SlurmTopologyFile {
 public:
  explicit SlurmTopologyFile(Logger log) : log_(std::move(log)) {}

  // `path` "" (the default) does nothing. A write that fails is logged (IBSM-2240) and
  // tried again at the next heavy sweep. Returns true when the file was written.
  bool update(const std::string& path, const std::shared_ptr<const sa::Snapshot>& fabric,
              const names::NodeNameMap* names);

 private:
  Logger log_;
  std::string path_;     // the file `written_` is in
  std::string written_;  // what it holds, as far as ibsm knows
};

}  // namespace ibsm::sm::publish
