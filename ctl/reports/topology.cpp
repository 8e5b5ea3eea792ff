// topology: Slurm's topology.conf (topology/tree), or the same tree as JSON, from the
// last heavy sweep's fabric (ops/slurm_fabric.hpp into slurm/topology.hpp). Hosts are
// kept or dropped by RE2 patterns on their Slurm names (ctl/port_patterns.hpp: linear
// time, bounded memory), the whole match bounded by kPatternTime.
#include <chrono>

#include <spdlog/fmt/fmt.h>

#include "ctl/errors.hpp"
#include "ctl/port_patterns.hpp"
#include "ctl/reports/families.hpp"
#include "ops/slurm_fabric.hpp"
#include "slurm/render.hpp"

namespace ibsm::ctl::reports {

Answer topology(const OpsSnapshot& s, const Snap& f, const Command& cmd) {
  const Command::TopologyArgs& args = cmd.topology;
  auto include = DescriptionPatterns::compile(args.include);
  if (!include) return fail_answer(include.error().id, include.error().message);
  auto exclude = DescriptionPatterns::compile(args.exclude);
  if (!exclude) return fail_answer(exclude.error().id, exclude.error().message);

  slurm::Options o;
  o.rails = args.all_ports ? slurm::Rails::kAll : slurm::Rails::kOne;
  o.rail = args.rail;
  const auto deadline = std::chrono::steady_clock::now() + kPatternTime;
  std::size_t looked = 0;
  bool late = false;
  if (!args.include.empty() || !args.exclude.empty())
    o.keep_host = [&](std::string_view host) {
      if (late || (++looked % 256 == 0 && std::chrono::steady_clock::now() > deadline)) {
        late = true;
        return false;
      }
      return (args.include.empty() || include->matches(host)) && !exclude->matches(host);
    };

  const slurm::Topology t = slurm::build_topology(ops::slurm_fabric(f, s.node_names.get()), o);
  if (late)
    return fail_answer(kErrPattern, fmt::format("matching took more than {} ms ({} hosts); use "
                                                "fewer or simpler patterns",
                                                kPatternTime.count(), looked));
  Answer a;
  a.json = slurm::topology_json(t);
  a.text = args.json_format ? a.json + "\n" : slurm::topology_conf(t, slurm::describe(o));
  return a;
}

}  // namespace ibsm::ctl::reports
