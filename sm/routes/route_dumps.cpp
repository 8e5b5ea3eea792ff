// The dump files of a sweep that brought the subnet up (sm/routes/route_dumps.hpp).
#include "sm/routes/route_dumps.hpp"

#include <sys/stat.h>

#include <fstream>
#include <string>

#include "common/atomic_file.hpp"
#include "routing/file/lid_matrix_dump.hpp"
#include "routing/lft_dump.hpp"
#include "sm/fabric/subnet_dump.hpp"

namespace ibsm::sm::routes {

void write_dumps(const Fabric& fabric, const routing::Topology& topology,
                 const routing::Routes& routes, const conf::Options& options, const Logger& log) {
  if (options.dump_files_dir.empty()) return;
  ::mkdir(options.dump_files_dir.c_str(), 0755);
  std::string dir = options.dump_files_dir;
  if (dir.back() != '/') dir += '/';
  // opensm-subnet.lst is written after every heavy sweep, as OpenSM does.
  if (auto st = write_file_atomically(
          dir + "opensm-subnet.lst",
          [&fabric](std::ostream& out) { write_subnet_lst(out, fabric); }, false);
      !st.ok()) {
    log->warn("{}", to_string(st.error()));
  }
  if ((options.log_flags & 0x40) == 0) return;
  const std::string path = dir + "opensm-lfts.dump";
  std::ofstream out(path, std::ios::trunc);
  routing::dump_lfts(out, topology, routes);
  if (!out) log->warn("cannot write {}", path);
  // opensm-lid-matrix.dump too, as OpenSM's osm_dump_all: the input of `-R file -M`.
  const std::string matrix_path = dir + "opensm-lid-matrix.dump";
  std::ofstream matrix(matrix_path, std::ios::trunc);
  if (!routing::dump_lid_matrix(matrix, topology).ok() || !matrix)
    log->warn("cannot write {}", matrix_path);
}

}  // namespace ibsm::sm::routes
