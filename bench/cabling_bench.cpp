// The cabling check on a large fabric (issue 35: topo_diff on kary-18-3-5832 under
// 100 ms). Reads the ibsim net file (972 switches, 5832 hosts by default), gives its
// nodes GUIDs, and times, each the best and the median of a few runs:
//   - reading the net file, and reading the fabric as ibnetdiscover would print it;
//   - compare_topology on the healthy fabric (no deviations) and on one with faults
//     (pairs of host cables swapped on leaves, cables removed, cables at 1x);
//   - compare_topology against the net file itself (nodes matched by name);
//   - find_degraded_links, and deviations_json of the faulty list.
// Usage: cabling_bench [net file] [runs] [faults]. The net file is looked up as given,
// in $IBSM_TOPOLOGIES, then in ../shared/topologies/ (default kary-18-3-5832.net).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "cabling/compare.hpp"
#include "cabling/ibnetdiscover_reader.hpp"
#include "cabling/link_rates_check.hpp"

#include "bench/bench_kit.hpp"

namespace {

using ibsm::bench::find_net;
using ibsm::bench::print;
using ibsm::bench::time_it;
using ibsm::bench::Timing;

using namespace ibsm::cabling;

// The fabric found, as the SM would hand it over: 4x EDR links, 1x-4x and SDR-EDR
// supported.
DiscoveredFabric as_found(const IntendedTopology& t) {
  DiscoveredFabric f;
  f.nodes.reserve(t.nodes.size());
  for (const auto& n : t.nodes)
    f.nodes.push_back({n.guid, n.type, n.name, {}});
  const WidthSet widths = width_bit(1) | width_bit(4);
  const SpeedSet speeds = speeds_from_iba(7, 2);
  for (const auto& l : t.links) {
    const auto add = [&](IntendedEnd self, IntendedEnd peer) {
      DiscoveredPort p;
      p.num = self.port;
      p.peer_guid = t.nodes[peer.node].guid;
      p.peer_port = peer.port;
      p.width_active = l.width ? l.width : 4;
      p.width_supported = p.width_enabled = widths;
      p.speed_active = Speed::kEdr;
      p.speed_supported = p.speed_enabled = speeds;
      f.nodes[self.node].ports.push_back(p);
    };
    add(l.a, l.b);
    add(l.b, l.a);
  }
  return f;
}

// What `ibnetdiscover` prints for this fabric (both ends of each cable, rates given).
std::string ibnetdiscover_text(const IntendedTopology& t) {
  std::vector<std::vector<std::pair<std::uint8_t, IntendedEnd>>> ports(t.nodes.size());
  for (const auto& l : t.links) {
    ports[l.a.node].push_back({l.a.port, l.b});
    ports[l.b.node].push_back({l.b.port, l.a});
  }
  const auto id = [&](std::uint32_t i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%c-%016llx", t.nodes[i].type == NodeType::kSwitch ? 'S' : 'H',
                  static_cast<unsigned long long>(t.nodes[i].guid));
    return std::string(buf);
  };
  std::string out;
  for (std::uint32_t i = 0; i < t.nodes.size(); ++i) {
    const auto& n = t.nodes[i];
    out += (n.type == NodeType::kSwitch ? "Switch\t" : "Ca\t") + std::to_string(n.num_ports) +
           " \"" + id(i) + "\"\t\t# \"" + n.name + "\" base port 0 lid 1 lmc 0\n";
    std::sort(ports[i].begin(), ports[i].end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [port, peer] : ports[i])
      out += "[" + std::to_string(port) + "]\t\"" + id(peer.node) + "\"[" +
             std::to_string(peer.port) + "]\t\t# \"" + t.nodes[peer.node].name + "\" lid 1 4xEDR\n";
    out += "\n";
  }
  return out;
}

// Swaps `faults` pairs of host cables on leaves, removes `faults` cables and makes
// `faults` cables 1x; returns the deviations that should give.
std::size_t break_cabling(IntendedTopology& t, std::size_t faults) {
  std::vector<std::size_t> host_links;
  for (std::size_t i = 0; i < t.links.size(); ++i) {
    const auto& l = t.links[i];
    if ((t.nodes[l.a.node].type == NodeType::kCa) != (t.nodes[l.b.node].type == NodeType::kCa))
      host_links.push_back(i);
  }
  std::size_t swapped = 0;
  for (std::size_t i = 0; i + 1 < host_links.size() && swapped < faults; i += 40) {
    auto& x = t.links[host_links[i]];
    auto& y = t.links[host_links[i + 1]];
    IntendedEnd& sx = t.nodes[x.a.node].type == NodeType::kSwitch ? x.a : x.b;
    IntendedEnd& sy = t.nodes[y.a.node].type == NodeType::kSwitch ? y.a : y.b;
    if (sx.node != sy.node) continue;
    std::swap(sx.port, sy.port);
    ++swapped;
  }
  // From the end of the list: every other cable at 1x, the ones between removed (the
  // highest index first, so that the lower ones stay where they are).
  const std::size_t n = t.links.size();
  for (std::size_t k = 0; k < faults; ++k)
    t.links[n - 1 - 2 * k].width = 1;
  for (std::size_t k = 0; k < faults; ++k)
    t.links.erase(t.links.begin() + static_cast<std::ptrdiff_t>(n - 2 - 2 * k));
  return 2 * swapped + 2 * faults;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string name = argc > 1 ? argv[1] : "kary-18-3-5832.net";
  const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 7;
  const std::size_t faults = argc > 3 ? static_cast<std::size_t>(std::atol(argv[3])) : 50;
  const auto path = find_net(name);
  if (path.empty()) {
    std::printf("cabling_bench: %s not found (set IBSM_TOPOLOGIES); skipped\n", name.c_str());
    return 0;
  }
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string net = text.str();

  std::size_t count = 0;
  IntendedTopology by_name;
  {
    const Timing t = time_it(runs, [&] {
      auto r = read_ibnetdiscover(net, path.string());
      if (!r) {
        std::fprintf(stderr, "%s\n", r.error().message.c_str());
        std::exit(1);
      }
      by_name = std::move(r).value();
    });
    print("read net file (nodes)", t, by_name.nodes.size());
  }
  IntendedTopology intended = by_name;
  for (std::size_t i = 0; i < intended.nodes.size(); ++i)
    intended.nodes[i].guid = 0x0002c90300000000ull + i + 1;
  const std::string disc = ibnetdiscover_text(intended);
  {
    const Timing t = time_it(runs, [&] { count = read_ibnetdiscover(disc, "disc")->links.size(); });
    print("read ibnetdiscover text (links)", t, count);
  }

  const DiscoveredFabric healthy = as_found(intended);
  IntendedTopology broken = intended;
  const std::size_t want = break_cabling(broken, faults);
  const DiscoveredFabric faulty = as_found(broken);
  std::vector<Deviation> list;
  {
    const Timing t = time_it(runs, [&] { list = compare_topology(intended, healthy); });
    print("compare_topology, healthy (deviations)", t, list.size());
  }
  {
    const Timing t = time_it(runs, [&] { list = compare_topology(intended, faulty); });
    print("compare_topology, faulty (deviations)", t, list.size());
  }
  std::printf("  faults planted: %zu deviations expected, %zu found\n", want, list.size());
  std::string json;
  {
    const Timing t = time_it(runs, [&] { json = deviations_json(list); });
    print("deviations_json of the faulty list (bytes)", t, json.size());
  }
  std::vector<Deviation> named;
  {
    const Timing t = time_it(runs, [&] { named = compare_topology(by_name, faulty); });
    print("compare_topology, net file by name", t, named.size());
  }
  std::vector<Deviation> degraded;
  {
    const Timing t = time_it(runs, [&] { degraded = find_degraded_links(faulty); });
    print("find_degraded_links, faulty (links)", t, degraded.size());
  }
  return list.size() == want && named == list ? 0 : 1;
}
