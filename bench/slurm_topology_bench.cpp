// Slurm's topology.conf on a large fabric (issue 36: kary-18-3-5832 under 100 ms). Reads
// the ibsim net file (972 switches, 5832 hosts by default) into an SA snapshot as the SM
// publishes it (nodes, ports, links; GUIDs in file order), and times, each the best and
// the median of a few runs, what `ibsm-ctl topology` and slurm_topology_file do:
//   - the snapshot into Slurm's input (ops::slurm_fabric);
//   - the switch tree (slurm::build_topology);
//   - topology.conf and JSON (slurm/render.hpp);
//   - all three together, the figure the target is about.
// Usage: slurm_topology_bench [net file] [runs]. The net file is looked up as given, in
// $IBSM_TOPOLOGIES, then in ../shared/topologies/ (default kary-18-3-5832.net).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "cabling/ibnetdiscover_reader.hpp"
#include "ops/slurm_fabric.hpp"
#include "slurm/render.hpp"

#include "bench/bench_kit.hpp"

namespace {

using ibsm::bench::find_net;
using ibsm::bench::print;
using ibsm::bench::time_it;
using ibsm::bench::Timing;

using namespace ibsm;

// The net file's nodes and cables as an SA snapshot: what the SM publishes, less the
// PortInfo, LIDs and tables topology.conf does not read.
sa::Snapshot as_snapshot(const cabling::IntendedTopology& t) {
  sa::Snapshot s;
  s.nodes.resize(t.nodes.size());
  for (std::uint32_t i = 0; i < t.nodes.size(); ++i) {
    const auto& n = t.nodes[i];
    sa::SnapNode& sn = s.nodes[i];
    sn.index = i;
    sn.info.node_type =
        n.type == cabling::NodeType::kSwitch ? mad::NodeType::kSwitch : mad::NodeType::kCa;
    sn.info.node_guid = (n.type == cabling::NodeType::kSwitch ? 0x200000 : 0x100000) + i;
    sn.info.num_ports = n.num_ports;
    sn.description = n.name;
    sn.ports.resize(std::size_t{n.num_ports} + 1);
    for (std::size_t p = 0; p < sn.ports.size(); ++p) {
      sn.ports[p].num = static_cast<mad::PortNum>(p);
      sn.ports[p].present = true;
    }
  }
  for (const auto& l : t.links) {
    s.nodes[l.a.node].ports[l.a.port].peer = {l.b.node, l.b.port};
    s.nodes[l.b.node].ports[l.b.port].peer = {l.a.node, l.a.port};
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string name = argc > 1 ? argv[1] : "kary-18-3-5832.net";
  const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 7;
  const auto path = find_net(name);
  if (path.empty()) {
    std::printf("slurm_topology_bench: %s not found (set IBSM_TOPOLOGIES); skipped\n",
                name.c_str());
    return 0;
  }
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  auto read = cabling::read_ibnetdiscover(text.str(), path.string());
  if (!read) {
    std::fprintf(stderr, "%s\n", read.error().message.c_str());
    return 1;
  }
  const sa::Snapshot snap = as_snapshot(*read);
  std::printf("%s: %zu nodes, %zu cables\n", path.filename().c_str(), read->nodes.size(),
              read->links.size());

  slurm::FabricInput input;
  const Timing adapt = time_it(runs, [&] { input = ops::slurm_fabric(snap, nullptr); });
  print("SA snapshot to Slurm input (host ports)", adapt, input.host_ports.size());
  slurm::Topology tree;
  const Timing build = time_it(runs, [&] { tree = slurm::build_topology(input, {}); });
  print("switch tree (switches in it)", build, tree.switches.size());
  std::string conf, json;
  const Timing render =
      time_it(runs, [&] { conf = slurm::topology_conf(tree, slurm::describe({})); });
  print("topology.conf (bytes)", render, conf.size());
  const Timing as_json = time_it(runs, [&] { json = slurm::topology_json(tree); });
  print("JSON (bytes)", as_json, json.size());
  std::size_t bytes = 0;
  const Timing all = time_it(runs, [&] {
    const auto t = slurm::build_topology(ops::slurm_fabric(snap, nullptr), {});
    bytes = slurm::topology_conf(t, slurm::describe({})).size();
  });
  print("all: snapshot to topology.conf (bytes)", all, bytes);
  std::printf("target: under 100 ms: %s\n", all.median < 100 ? "met" : "MISSED");
  if (argc > 3) std::fputs(conf.c_str(), stdout);
  return 0;
}
