// PathRecord throughput of the SA, in process, on one core.
//
// Sweeps an SM once on the FakeFabric built from a net file (default: the 5832-host
// 3-level fat tree kary-18-3-5832.net), then measures for random host pairs:
//   - PathRecord Get (SGID + DGID, the mask of libibmad and of most clients) through
//     SaServer::answer: a full 256-byte MAD in, the response MAD out;
//   - the same paths through the resolver alone (both directions walked, as a
//     record needs the Reversible bit);
//   - the snapshot publication (build_sa_snapshot, path tables included) and
//     Snapshot::memory_bytes();
//   - with qos on and a QoS policy file of 200 match rules over 50 port groups (GUID
//     lists of the hosts): the policy's compile time, and the resolver and
//     SaServer::answer rates again (target: at least 1 M answers/s).
// Each timed loop is also one callgrind dump of its own: under
//   valgrind --tool=callgrind --instr-atstart=no build/bench/sa_path_bench NET 20000
// callgrind.out.<pid>.1 .. .5 hold the instructions (and with --cache-sim=yes the cache
// misses) of the resolver, answer, qos, qos + policy and answer + policy loops, which
// divided by the queries stay the same on a loaded machine where the rates do not. The
// sweep before them runs uninstrumented. Natively the markers do nothing.
// Usage: sa_path_bench [net file] [queries]. The net file is looked up in
// $IBSM_TOPOLOGIES, then ../shared/topologies next to the source tree; without it the
// benchmark says so and exits 0.
#include <algorithm>
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

#include "qos_policy/compile.hpp"
#include "qos_policy/parser.hpp"
#include "sa/path_resolver.hpp"
#include "sa/qos_view.hpp"
#include "sa/records/record_util.hpp"
#include "sm/publish/sa_snapshot.hpp"
#include "sm/subnet_manager.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/net_file.hpp"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define SA_BENCH_PHASE_BEGIN()       \
  do {                               \
    CALLGRIND_START_INSTRUMENTATION; \
    CALLGRIND_ZERO_STATS;            \
  } while (false)
#define SA_BENCH_PHASE_END(name) CALLGRIND_DUMP_STATS_AT(name)
#else
#define SA_BENCH_PHASE_BEGIN() static_cast<void>(0)
#define SA_BENCH_PHASE_END(name) static_cast<void>(name)
#endif

#include "bench/bench_kit.hpp"

namespace {

using ibsm::bench::find_net;

using WallClock = std::chrono::steady_clock;
using namespace ibsm;

double seconds_since(WallClock::time_point t0) {
  return std::chrono::duration<double>(WallClock::now() - t0).count();
}

// CPU time of this thread: on a shared machine, what the work itself took.
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// A policy of `groups` port groups (hosts dealt round-robin by GUID) and `rules`
// match rules: a quarter on source and destination groups, a quarter on source group
// and ServiceID, a quarter on destination group and P_Key, a quarter on both groups
// and QoS class; nine levels with SL, MTU and rate limits.
std::string make_policy(const std::vector<std::uint64_t>& guids, unsigned groups, unsigned rules) {
  std::string t = "port-groups\n";
  for (unsigned g = 0; g < groups; ++g) {
    t += "  port-group\n    name: g" + std::to_string(g) + "\n";
    std::string list;
    for (std::size_t i = g; i < guids.size(); i += groups) {
      char buf[24];
      std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(guids[i]));
      list += (list.empty() ? "" : ", ") + std::string(buf);
      if (list.size() > 900) {  // several port-guid lines, as a site would write them
        t += "    port-guid: " + list + "\n";
        list.clear();
      }
    }
    if (!list.empty()) t += "    port-guid: " + list + "\n";
    t += "  end-port-group\n";
  }
  t += "end-port-groups\nqos-levels\n  qos-level\n    name: DEFAULT\n    sl: 0\n  end-qos-level\n";
  for (unsigned l = 1; l <= 8; ++l) {
    t += "  qos-level\n    name: L" + std::to_string(l) + "\n    sl: " + std::to_string(l) +
         "\n    mtu-limit: " + std::to_string(1 + l % 5) +
         "\n    rate-limit: " + std::to_string(3 + l % 5) + "\n  end-qos-level\n";
  }
  t += "end-qos-levels\nqos-match-rules\n";
  for (unsigned r = 0; r < rules; ++r) {
    const std::string src = "g" + std::to_string(r % groups);
    const std::string dst = "g" + std::to_string((r * 7 + 3) % groups);
    t += "  qos-match-rule\n";
    switch (r % 4) {
      case 0:
        t += "    source: " + src + "\n    destination: " + dst + "\n";
        break;
      case 1:
        t += "    source: " + src + "\n    service-id: " + std::to_string(0x10000 + r) + "\n";
        break;
      case 2:
        t += "    destination: " + dst + "\n    pkey: " + std::to_string(r) + "\n";
        break;
      default:
        t += "    source: " + src + "\n    destination: " + dst +
             "\n    qos-class: " + std::to_string(r % 16) + "\n";
        break;
    }
    t += "    qos-level-name: L" + std::to_string(1 + r % 8) + "\n  end-qos-match-rule\n";
  }
  return t + "end-qos-match-rules\n";
}

}  // namespace

int main(int argc, char** argv) {
  const std::string name = argc > 1 ? argv[1] : "kary-18-3-5832.net";
  const std::size_t queries = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 2'000'000;
  const auto path = find_net(name);
  if (path.empty()) {
    std::printf("sa_path_bench: %s not found (set IBSM_TOPOLOGIES); skipped\n", name.c_str());
    return 0;
  }
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  auto desc = testsupport::parse_net(text.str(), path.string());
  if (!desc.ok()) {
    std::fprintf(stderr, "sa_path_bench: %s\n", desc.error().message.c_str());
    return 1;
  }

  const auto cache = std::filesystem::temp_directory_path() / "ibsm-sa-path-bench";
  std::filesystem::create_directories(cache);
  conf::Options options;
  options.cache_dir = cache.string();
  options.dump_files_dir = cache.string();
  options.partition_config_file = "/nonexistent/ibsm-bench/partitions.conf";
  FakeClock clock;
  fake::FakeFabric fabric(*desc, clock);
  sm::SubnetManager manager(fabric, clock, null_logger(), options);
  std::atomic<bool> stop{false};
  auto t0 = WallClock::now();
  const auto sweep = manager.sweep(stop);
  std::printf("fabric %s: %zu nodes (%zu switches, %zu end ports); sweep %.2f s, %s\n",
              path.filename().c_str(), sweep.nodes, sweep.switches, sweep.end_ports,
              seconds_since(t0), sweep.subnet_up ? "SUBNET UP" : "NOT UP");
  if (!sweep.subnet_up) return 1;
  sa::SaServer& server = manager.sa();
  const sa::SnapshotPtr snap = server.snapshot();

  // (b) Snapshot publication, as the SM does it after each heavy sweep.
  {
    const sm::Fabric& f = manager.fabric();
    routing::Routes routes;
    std::vector<sm::NodeIndex> routed;
    for (sm::NodeIndex i = 0; i < f.size(); ++i) {
      if (!snap->nodes[i].is_switch()) continue;
      routed.push_back(i);
      routes.lfts.push_back(snap->nodes[i].lft);
    }
    sm::SaSnapshotInput input{f, routes, routed, manager.partitions().groups(), options};
    input.partitions = &manager.partitions().resolved();
    input.tables = &manager.port_tables();
    constexpr int kRounds = 5;
    double best = 1e9;
    std::size_t bytes = 0;
    for (int i = 0; i < kRounds; ++i) {
      t0 = WallClock::now();
      auto s = sm::build_sa_snapshot(input);
      best = std::min(best, seconds_since(t0));
      bytes = s->memory_bytes();
    }
    t0 = WallClock::now();
    auto tables = sa::build_path_tables(*snap);
    const double tables_s = seconds_since(t0);
    std::printf(
        "snapshot publication: %.1f ms (best of %d; path tables %.1f ms, %.1f MB); "
        "memory_bytes %.1f MB\n",
        best * 1e3, kRounds, tables_s * 1e3, tables->bytes() / 1e6, bytes / 1e6);
  }

  // Random host pairs (CA ports with a LID).
  std::vector<sa::PortRef> hosts;
  for (const sa::SnapNode& n : snap->nodes) {
    if (n.is_switch()) continue;
    for (const sa::SnapPort& p : n.ports)
      if (p.present && p.num != 0 && p.lid != 0) hosts.push_back({n.index, p.num});
  }
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<std::size_t> pick(0, hosts.size() - 1);
  struct Pair {
    sa::PortRef s, d;
  };
  std::vector<Pair> pairs(1u << 16);
  for (Pair& p : pairs)
    p = {hosts[pick(rng)], hosts[pick(rng)]};
  const std::size_t mask = pairs.size() - 1;

  // (a1) The resolver alone.
  {
    const sa::SaSettings& st = server.settings();
    const sa::PathResolver r(*snap, st);
    const sa::PathQuery q;
    std::size_t found = 0;
    unsigned hop_sum = 0;
    SA_BENCH_PHASE_BEGIN();
    const double c0 = cpu_seconds();
    t0 = WallClock::now();
    for (std::size_t i = 0; i < queries; ++i) {
      const Pair& p = pairs[i & mask];
      auto resolved = r.resolve(p.s, snap->port(p.s).lid, p.d, snap->port(p.d).lid, q, 0);
      if (resolved) {
        ++found;
        hop_sum += resolved->params.hops;
      }
    }
    const double s = seconds_since(t0);
    const double c = cpu_seconds() - c0;
    SA_BENCH_PHASE_END("resolver");
    std::printf(
        "resolver: %zu paths in %.3f s = %.2f M paths/s wall, %.2f M/s per CPU second "
        "(%zu found, %.2f switches per path)\n",
        queries, s, queries / s / 1e6, queries / c / 1e6, found,
        found ? double(hop_sum) / found : 0.0);
  }

  // (a2) Through SaServer::answer: a PathRecord Get MAD in, the GetResp MAD out.
  {
    const sa::Lid from = snap->port(hosts.front()).lid;
    mad::MadAddress addr;
    addr.lid = from;
    std::vector<sa::SaMad> requests(4096);
    for (std::size_t i = 0; i < requests.size(); ++i) {
      const Pair& p = pairs[i];
      sa::SaMad& m = requests[i];
      m.header.method = sa::method::kGet;
      m.header.attr_id = sa::attr::kPathRecord;
      m.header.tid = i;
      m.header.comp_mask = (1ull << 2) | (1ull << 3);  // DGID, SGID
      m.data.assign(sa::kDataSize, 0);
      sa::put_be(m.data, 8, snap->subnet_prefix, 8);
      sa::put_be(m.data, 16, snap->port(p.d).guid, 8);
      sa::put_be(m.data, 24, snap->subnet_prefix, 8);
      sa::put_be(m.data, 32, snap->port(p.s).guid, 8);
    }
    std::size_t ok = 0;
    SA_BENCH_PHASE_BEGIN();
    const double c0 = cpu_seconds();
    t0 = WallClock::now();
    for (std::size_t i = 0; i < queries; ++i) {
      const sa::SaResponse resp = server.answer(requests[i & (requests.size() - 1)], addr);
      ok += resp.records;
    }
    const double s = seconds_since(t0);
    const double c = cpu_seconds() - c0;
    SA_BENCH_PHASE_END("answer");
    std::printf(
        "SaServer::answer (Get SGID+DGID): %zu requests in %.3f s = %.2f M/s wall, "
        "%.2f M/s per CPU second (%zu records)\n",
        queries, s, queries / s / 1e6, queries / c / 1e6, ok);
  }

  // (a3) qos on, with a QoS policy file of 200 match rules over 50 port groups.
  {
    std::vector<std::uint64_t> guids;
    for (const sa::PortRef& h : hosts)
      guids.push_back(snap->port(h).guid);
    std::sort(guids.begin(), guids.end());
    const std::string policy_text = make_policy(guids, 50, 200);
    t0 = WallClock::now();
    auto parsed = qos_policy::parse_policy(policy_text);
    if (!parsed) {
      std::fprintf(stderr, "sa_path_bench: policy: %s\n",
                   qos_policy::format_error(parsed.error(), "generated").c_str());
      return 1;
    }
    const double parse_s = seconds_since(t0);
    auto policy = std::make_shared<const qos_policy::Policy>(std::move(*parsed));
    t0 = WallClock::now();
    std::vector<qos_policy::CompileNote> notes;
    auto compiled =
        qos_policy::compile(policy, sa::qos_fabric_view(*snap, *snap->path_tables), notes);
    const double compile_s = seconds_since(t0);
    if (!compiled) return 1;
    std::printf(
        "QoS policy: %zu bytes, %zu port groups, %zu rules; parse %.1f ms, compile %.1f ms "
        "(%u port signatures, %zu candidate entries)\n",
        policy_text.size(), policy->groups.size(), policy->rules.size(), parse_s * 1e3,
        compile_s * 1e3, compiled->signatures(), compiled->candidate_entries());
    auto shared = std::make_shared<const qos_policy::CompiledPolicy>(std::move(*compiled));
    auto copy = std::make_shared<sa::Snapshot>(*snap);
    sa::SaSettings st = server.settings();
    st.qos = true;
    // qos on without a policy first (the cost of QoS itself), then with it.
    for (const bool with_policy : {false, true}) {
      copy->qos_policy = with_policy ? shared : nullptr;
      const sa::PathResolver r(*copy, st);
      std::size_t found = 0, leveled = 0;
      SA_BENCH_PHASE_BEGIN();
      const double c0 = cpu_seconds();
      t0 = WallClock::now();
      for (std::size_t i = 0; i < queries; ++i) {
        const Pair& p = pairs[i & mask];
        const sa::PathQuery q;
        auto resolved = r.resolve(p.s, snap->port(p.s).lid, p.d, snap->port(p.d).lid, q, 0);
        if (resolved) {
          ++found;
          leveled += resolved->params.sl != 0 ? 1 : 0;
        }
      }
      const double s = seconds_since(t0);
      const double c = cpu_seconds() - c0;
      SA_BENCH_PHASE_END(with_policy ? "resolver, qos + policy" : "resolver, qos");
      std::printf(
          "resolver, qos%s: %zu paths in %.3f s = %.2f M paths/s wall, %.2f M/s per CPU "
          "second (%zu found, %zu with a rule's SL)\n",
          with_policy ? " + policy" : "", queries, s, queries / s / 1e6, queries / c / 1e6, found,
          leveled);
    }

    server.set_settings(st);
    server.amend([&](sa::Snapshot& sn) { sn.qos_policy = shared; });
    const sa::Lid from = snap->port(hosts.front()).lid;
    mad::MadAddress addr;
    addr.lid = from;
    std::vector<sa::SaMad> requests(4096);
    for (std::size_t i = 0; i < requests.size(); ++i) {
      const Pair& p = pairs[i];
      sa::SaMad& m = requests[i];
      m.header.method = sa::method::kGet;
      m.header.attr_id = sa::attr::kPathRecord;
      m.header.tid = i;
      m.header.comp_mask = (1ull << 2) | (1ull << 3);  // DGID, SGID
      m.data.assign(sa::kDataSize, 0);
      sa::put_be(m.data, 8, snap->subnet_prefix, 8);
      sa::put_be(m.data, 16, snap->port(p.d).guid, 8);
      sa::put_be(m.data, 24, snap->subnet_prefix, 8);
      sa::put_be(m.data, 32, snap->port(p.s).guid, 8);
    }
    std::size_t ok = 0;
    SA_BENCH_PHASE_BEGIN();
    const double c1 = cpu_seconds();
    t0 = WallClock::now();
    for (std::size_t i = 0; i < queries; ++i) {
      const sa::SaResponse resp = server.answer(requests[i & (requests.size() - 1)], addr);
      ok += resp.records;
    }
    const double s2 = seconds_since(t0);
    const double c2 = cpu_seconds() - c1;
    SA_BENCH_PHASE_END("answer, qos + policy");
    std::printf(
        "SaServer::answer, qos + policy (Get SGID+DGID): %zu requests in %.3f s = %.2f M/s "
        "wall, %.2f M/s per CPU second (%zu records)\n",
        queries, s2, queries / s2 / 1e6, queries / c2 / 1e6, ok);
  }
  std::filesystem::remove_all(cache);
  return 0;
}
