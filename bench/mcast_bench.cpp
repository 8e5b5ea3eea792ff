// Multicast tree computation and MFT programming on a large fabric (default: the
// 5832-host 3-level fat tree kary-18-3-5832.net), in process, on one core:
//   (a) every host in one group (the IPoIB broadcast group): one tree;
//   (b) 10 000 groups of 64 random hosts each: all trees, their memory;
//   (c) the SM end to end on the FakeFabric: a heavy sweep with the groups of (a) and
//       (b) in the SA's store, the MFT Sets it sends, a second sweep (no Set expected),
//       and one join between sweeps (SMPs and time until it is on the wire).
// Usage: mcast_bench [net file] [groups] [members per group]. The net file is looked
// up in $IBSM_TOPOLOGIES, then ../shared/topologies next to the source tree; without
// it the benchmark says so and exits 0.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "routing/hop_matrix.hpp"
#include "routing/mcast_tree.hpp"
#include "sm/subnet_manager.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/net_file.hpp"
#include "tests/support/to_routing.hpp"

#include "bench/bench_kit.hpp"

namespace {

using ibsm::bench::find_net;

using WallClock = std::chrono::steady_clock;
using namespace ibsm;
using mad::Guid;

double seconds_since(WallClock::time_point t0) {
  return std::chrono::duration<double>(WallClock::now() - t0).count();
}

// CPU time of this thread: on a shared machine, what the work itself took.
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Resident set size in MB (/proc/self/statm, second field in pages).
double rss_mb() {
  std::ifstream in("/proc/self/statm");
  std::size_t size = 0;
  std::size_t resident = 0;
  in >> size >> resident;
  return static_cast<double>(resident) * 4096.0 / (1024.0 * 1024.0);
}

sa::Gid mgid(std::uint32_t n) {
  sa::Gid g{0xff, 0x12, 0x60, 0x1b, 0xff, 0xff};
  g[12] = static_cast<std::uint8_t>(n >> 24);
  g[13] = static_cast<std::uint8_t>(n >> 16);
  g[14] = static_cast<std::uint8_t>(n >> 8);
  g[15] = static_cast<std::uint8_t>(n);
  return g;
}

sa::McMember member_of(Guid port_guid) {
  sa::McMember m;
  m.port_guid = port_guid;
  m.port_gid[0] = 0xfe;
  m.port_gid[1] = 0x80;
  for (int b = 0; b < 8; ++b)
    m.port_gid[8 + static_cast<std::size_t>(b)] =
        static_cast<std::uint8_t>(port_guid >> (56 - 8 * b));
  m.join_state = sa::join::kFull;
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string name = argc > 1 ? argv[1] : "kary-18-3-5832.net";
  const std::size_t groups = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 10'000;
  const std::size_t per_group = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 64;
  const auto path = find_net(name);
  if (path.empty()) {
    std::printf("mcast_bench: %s not found (set IBSM_TOPOLOGIES); skipped\n", name.c_str());
    return 0;
  }
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  auto desc = testsupport::parse_net(text.str(), path.string());
  if (!desc.ok()) {
    std::fprintf(stderr, "mcast_bench: %s\n", desc.error().message.c_str());
    return 1;
  }
  const auto fx = testsupport::to_routing(*desc);
  const routing::Topology& topo = fx.topo;
  std::printf("fabric %s: %zu switches, %zu end ports\n", path.filename().c_str(),
              topo.switches.size(), topo.end_ports.size());

  auto t0 = WallClock::now();
  auto hops = routing::HopMatrix::compute(topo);
  if (!hops.ok()) {
    std::fprintf(stderr, "mcast_bench: %s\n", hops.error().message.c_str());
    return 1;
  }
  std::printf("hop matrix: %.1f ms\n", seconds_since(t0) * 1e3);
  routing::McastTreeBuilder builder(topo, *hops);

  // (a) one group with every host.
  std::vector<routing::McastMember> all;
  for (const routing::EndPort& e : topo.end_ports)
    if (e.sw != UINT32_MAX) all.push_back({e.sw, e.sw_port});
  double c0 = cpu_seconds();
  t0 = WallClock::now();
  const routing::McastTree bcast = builder.build(all, 0xC000);
  std::printf(
      "(a) broadcast group, %zu members: tree in %.2f ms (cpu %.2f ms), %zu switches, "
      "%zu bytes\n",
      all.size(), seconds_since(t0) * 1e3, (cpu_seconds() - c0) * 1e3, bcast.entries.size(),
      bcast.memory_bytes());

  // (b) many groups of random hosts.
  std::mt19937 rng(42);
  std::vector<std::vector<routing::McastMember>> lists(groups);
  std::vector<std::vector<Guid>> guids(groups);
  for (std::size_t g = 0; g < groups; ++g) {
    for (std::size_t i = 0; i < per_group; ++i) {
      const routing::EndPort& e = topo.end_ports[rng() % topo.end_ports.size()];
      if (e.sw == UINT32_MAX) continue;
      lists[g].push_back({e.sw, e.sw_port});
      guids[g].push_back(e.port_guid);
    }
  }
  const double rss0 = rss_mb();
  std::vector<routing::McastTree> trees(groups);
  c0 = cpu_seconds();
  t0 = WallClock::now();
  std::size_t bytes = 0;
  std::size_t entries = 0;
  for (std::size_t g = 0; g < groups; ++g) {
    trees[g] = builder.build(lists[g], static_cast<std::uint32_t>(0xC001 + g));
    bytes += trees[g].memory_bytes() + sizeof(routing::McastTree);
    entries += trees[g].entries.size();
  }
  const double wall = seconds_since(t0);
  std::printf(
      "(b) %zu groups x %zu random members: trees in %.1f ms (cpu %.1f ms, %.1f us per "
      "group), %.1f switches per tree, %.1f MB of trees (RSS +%.1f MB)\n",
      groups, per_group, wall * 1e3, (cpu_seconds() - c0) * 1e3, wall * 1e6 / groups,
      static_cast<double>(entries) / static_cast<double>(groups), bytes / 1048576.0,
      rss_mb() - rss0);
  trees.clear();
  trees.shrink_to_fit();

  // (c) the SM end to end on the FakeFabric.
  FakeClock clock;
  fake::FakeOptions fo;
  fo.multicast_fdb_cap = 0x4000;  // the whole MLID range, so every group is programmed
  fake::FakeFabric fabric(*desc, clock, fo);
  conf::Options options;
  const std::string dir = (std::filesystem::temp_directory_path() / "ibsm-mcast-bench").string();
  std::filesystem::create_directories(dir);
  options.cache_dir = dir;
  options.partition_config_file = dir + "/none.conf";
  sm::SubnetManager sm(fabric, clock, null_logger(), options);
  std::atomic<bool> stop{false};
  t0 = WallClock::now();
  auto r = sm.sweep(stop);
  std::printf("(c) SM first heavy sweep without groups: %.2f s, up %d\n", seconds_since(t0),
              r.subnet_up);
  sa::McGroupStore& store = sm.sa().state().mcast;
  {
    sa::McGroupRec g;
    g.mgid = mgid(0);
    for (const routing::EndPort& e : topo.end_ports)
      g.members.push_back(member_of(e.port_guid));
    store.create(std::move(g));
  }
  for (std::size_t i = 0; i < groups; ++i) {
    sa::McGroupRec g;
    g.mgid = mgid(static_cast<std::uint32_t>(i + 1));
    for (Guid p : guids[i])
      g.members.push_back(member_of(p));
    store.create(std::move(g));
  }
  const double rss1 = rss_mb();
  fabric.reset_stats();
  sm.request_heavy_sweep(sm::HeavyReason::kForced);
  t0 = WallClock::now();
  r = sm.sweep(stop);
  const double heavy = seconds_since(t0);
  const auto& mc = sm.multicast().counters();
  std::printf(
      "    heavy sweep with %zu MLIDs: %.2f s, up %d, MFT Sets %llu (confirmed %llu), "
      "RSS +%.1f MB (SM tables want + held, snapshot copy)\n",
      store.mlids_in_use(), heavy, r.subnet_up,
      static_cast<unsigned long long>(
          fabric.stats().count(mad::Method::kSet, mad::AttrId::kMulticastForwardingTable)),
      static_cast<unsigned long long>(mc.confirmed), rss_mb() - rss1);
  fabric.reset_stats();
  sm.request_heavy_sweep(sm::HeavyReason::kForced);
  t0 = WallClock::now();
  r = sm.sweep(stop);
  std::printf("    second heavy sweep: %.2f s, MFT Sets %llu\n", seconds_since(t0),
              static_cast<unsigned long long>(
                  fabric.stats().count(mad::Method::kSet, mad::AttrId::kMulticastForwardingTable)));
  // One join between sweeps: recompute one MLID, send its differing blocks.
  sa::McGroupRec* g = store.find(mgid(1));
  g->members.push_back(member_of(topo.end_ports[rng() % topo.end_ports.size()].port_guid));
  store.mark_dirty(g->mlid);
  fabric.reset_stats();
  c0 = cpu_seconds();
  t0 = WallClock::now();
  const std::size_t queued = sm.program_multicast_changes();
  const double compute_ms = seconds_since(t0) * 1e3;
  static_cast<void>(sm.sweep(stop));  // a light sweep drains the SMP client
  std::printf(
      "    one join: recomputed and queued %zu Sets in %.2f ms (cpu %.2f ms); MFT Sets "
      "on the wire %llu\n",
      queued, compute_ms, (cpu_seconds() - c0) * 1e3,
      static_cast<unsigned long long>(
          fabric.stats().count(mad::Method::kSet, mad::AttrId::kMulticastForwardingTable)));
  std::filesystem::remove_all(dir);
  return 0;
}
