// routing_route_net <file.net> [engine] [--lmc N] [--root GUID]... [--max-vls N] [--dump FILE]
//                   [--load-lfts FILE [--guid2lid FILE]] [--patterns R] [--seed S] [--shifts K]
//                   [--torus-config FILE]
// routing_route_net --list-engines
// Routes an ibsim net file in-process (or, with --load-lfts, reads another SM's
// opensm-lfts.dump instead) and prints the routing time and the route-quality metrics of
// docs/routing.md: validity, all-to-all channel loads (EFI), effective bisection bandwidth,
// shift congestion, path length, channel dependencies. bench/routing_engines.py parses the
// output, so keep the line formats.
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <unordered_map>

#include "routing/analysis.hpp"
#include "routing/cdg.hpp"
#include "routing/engine.hpp"
#include "routing/file/lft_dump_reader.hpp"
#include "routing/lft_dump.hpp"
#include "routing/route_report.hpp"
#include "tests/support/net_file.hpp"
#include "tests/support/to_routing.hpp"

namespace {

using namespace ibsm;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

bool read_file(const std::string& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  text = ss.str();
  return true;
}

// OpenSM's guid2lid cache file ("0x<port guid> 0x<min lid> 0x<max lid>" per line): the LIDs
// that SM gave, so that its LFT dump is graded against the same LIDs. Returns the number of
// topology ports it left without a LID from the file (they keep ours).
bool apply_guid2lid(const std::string& path, routing::Topology& topo, std::size_t& missing) {
  std::string text;
  if (!read_file(path, text)) return false;
  std::unordered_map<std::uint64_t, routing::Lid> lids;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string guid, lid;
    if (!(fields >> guid >> lid)) continue;
    lids[std::stoull(guid, nullptr, 0)] = static_cast<routing::Lid>(std::stoul(lid, nullptr, 0));
  }
  missing = 0;
  const auto assign = [&](std::uint64_t guid, routing::Lid& lid) {
    const auto it = lids.find(guid);
    if (it == lids.end()) {
      ++missing;
    } else {
      lid = it->second;
    }
  };
  for (auto& sw : topo.switches)
    assign(sw.guid, sw.lid);
  for (auto& ep : topo.end_ports)
    assign(ep.port_guid, ep.base_lid);
  return true;
}

void print_quality(const routing::Topology& topo, const routing::Routes& routes, unsigned patterns,
                   std::uint64_t seed, unsigned shifts) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto ebb = routing::effective_bisection_bandwidth(topo, routes, {patterns, seed});
  const double ebb_s = seconds_since(t0);
  std::cout << "ebb mean " << ebb.mean << " min " << ebb.min << " max " << ebb.max << " patterns "
            << ebb.patterns << " undelivered " << ebb.undelivered << " (" << ebb_s << " s)\n";
  const auto t1 = std::chrono::steady_clock::now();
  routing::ShiftOptions so;
  so.max_shifts = shifts;
  const auto shift = routing::shift_congestion(topo, routes, so);
  const double shift_s = seconds_since(t1);
  std::cout << "shift worst " << shift.worst << " mean " << shift.mean << " at k "
            << shift.worst_shift << " shifts " << shift.shifts << " undelivered "
            << shift.undelivered << " (" << shift_s << " s)\n";
  const auto t2 = std::chrono::steady_clock::now();
  const auto paths = routing::path_stats(topo, routes);
  std::cout << "paths mean hops " << paths.mean_hops << " max " << paths.max_hops << " non-minimal "
            << paths.non_minimal_percent() << " % of " << paths.paths << " (" << seconds_since(t2)
            << " s)\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--list-engines") {
    for (const auto name : routing::engine_names())
      std::cout << name << "\n";
    return 0;
  }
  if (argc < 2) {
    std::cerr << "usage: routing_route_net <file.net> [engine] [--lmc N] [--root GUID]... "
                 "[--max-vls N] [--nue-vls N] [--lash-start-vl N] [--mesh-analysis] [--dump FILE] "
                 "[--load-lfts FILE "
                 "[--guid2lid FILE]] "
                 "[--patterns R] [--seed S] [--shifts K] [--torus-config FILE]\n       "
                 "routing_route_net --list-engines\n";
    return 2;
  }
  std::string engine_name = "minhop";
  std::string dump, load_lfts, guid2lid;
  unsigned lmc = 0;
  unsigned patterns = 100;
  std::uint64_t seed = 1;
  int shifts = -1;  // -1: every shift up to 6000 hosts, else 1000 evenly spaced
  routing::EngineConfig config;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--lmc" && has_value) {
      lmc = static_cast<unsigned>(std::atoi(argv[++i]));
    } else if (a == "--root" && has_value) {
      config.root_guids.push_back(std::stoull(argv[++i], nullptr, 0));
    } else if (a == "--max-vls" && has_value) {
      config.max_vls = static_cast<unsigned>(std::atoi(argv[++i]));
    } else if (a == "--nue-vls" && has_value) {
      config.nue_max_vls = static_cast<unsigned>(std::atoi(argv[++i]));
    } else if (a == "--lash-start-vl" && has_value) {
      config.lash_start_vl = static_cast<unsigned>(std::atoi(argv[++i]));
    } else if (a == "--mesh-analysis") {
      config.do_mesh_analysis = true;
    } else if (a == "--dump" && has_value) {
      dump = argv[++i];
    } else if (a == "--load-lfts" && has_value) {
      load_lfts = argv[++i];
    } else if (a == "--guid2lid" && has_value) {
      guid2lid = argv[++i];
    } else if (a == "--patterns" && has_value) {
      patterns = static_cast<unsigned>(std::atoi(argv[++i]));
    } else if (a == "--seed" && has_value) {
      seed = std::stoull(argv[++i], nullptr, 0);
    } else if (a == "--torus-config" && has_value) {
      config.torus_config.path = argv[++i];
      if (!read_file(config.torus_config.path, config.torus_config.text)) {
        std::cerr << config.torus_config.path << ": cannot read\n";
        return 1;
      }
    } else if (a == "--shifts" && has_value) {
      shifts = std::atoi(argv[++i]);
    } else {
      engine_name = a;
    }
  }
  auto fabric = testsupport::load_net_file(argv[1]);
  if (!fabric) {
    std::cerr << to_string(fabric.error()) << "\n";
    return 1;
  }
  auto fx = testsupport::to_routing(*fabric, static_cast<std::uint8_t>(lmc));
  if (!guid2lid.empty()) {
    std::size_t missing = 0;
    if (!apply_guid2lid(guid2lid, fx.topo, missing)) {
      std::cerr << guid2lid << ": cannot read\n";
      return 1;
    }
    if (missing != 0) std::cout << "guid2lid: " << missing << " ports without a LID there\n";
  }
  Result<routing::Routes> routes = fail(Error{});
  if (!load_lfts.empty()) {
    const auto t0 = std::chrono::steady_clock::now();
    std::string text;
    if (!read_file(load_lfts, text)) {
      std::cerr << load_lfts << ": cannot read\n";
      return 1;
    }
    auto parsed = routing::parse_lft_dump(text, load_lfts);
    if (!parsed) {
      std::cerr << to_string(parsed.error()) << "\n";
      return 1;
    }
    text.clear();
    routes = routing::routes_from_dump(fx.topo, *parsed, load_lfts);
    std::cout << "switches " << fx.topo.switches.size() << " end ports " << fx.topo.end_ports.size()
              << "\nloaded " << load_lfts << " in " << seconds_since(t0) << " s\n";
  } else {
    auto engine = routing::make_engine(engine_name, config);
    if (!engine) {
      std::cerr << "unknown engine " << engine_name << " (known:";
      for (const auto name : routing::engine_names())
        std::cerr << " " << name;
      std::cerr << ")\n";
      return 2;
    }
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    routes = engine->route(fx.topo);
    const std::clock_t c1 = std::clock();
    std::cout << "switches " << fx.topo.switches.size() << " end ports " << fx.topo.end_ports.size()
              << "\nrouting " << seconds_since(t0) << " s wall, "
              << static_cast<double>(c1 - c0) / CLOCKS_PER_SEC << " s cpu\n";
  }
  if (!routes) {
    std::cerr << to_string(routes.error()) << "\n";
    return 1;
  }
  // Virtual layers (dfsssp): layers needed for acyclic CDGs, SLs handed out after
  // spreading over the spare VLs; 1 / 1 for engines without SLs.
  const auto& psl = routes->path_sl;
  std::cout << "layers " << (psl.empty() ? 1U : psl.layers) << " sls "
            << (psl.empty() ? 1U : psl.sls) << "\n";
  const auto pairs = routing::check_all_pairs(fx.topo, *routes);
  std::cout << "pairs " << pairs.pairs << " delivered " << pairs.delivered << " loops "
            << pairs.loops << " black holes " << pairs.black_holes << "\n";
  const auto loads = routing::channel_loads(fx.topo, *routes);
  std::cout << "channels " << loads.channels.size() << " max (EFI) " << loads.max << " min "
            << loads.min << " mean " << loads.mean << " unused " << loads.unused << "\n";
  const std::size_t hosts = routing::leaf_major_order(fx.topo).size();
  const unsigned shift_count =
      shifts >= 0 ? static_cast<unsigned>(shifts) : (hosts <= 6000 ? 0U : 1000U);
  print_quality(fx.topo, *routes, patterns, seed, shift_count);
  for (const Error& w : routes->warnings)
    std::cout << "warning: " << to_string(w) << "\n";
  const auto c2 = std::chrono::steady_clock::now();
  routing::CdgOptions cdg_options;  // per-path SL = VL, as the route report does
  if (!psl.empty())
    cdg_options.vl_of = [&](std::uint32_t src, routing::Lid dlid) -> std::uint8_t {
      return psl.sl(fx.topo.end_ports[src].sw, dlid);
    };
  const auto cdg = routing::check_channel_dependencies(fx.topo, *routes, cdg_options);
  const auto c3 = std::chrono::steady_clock::now();
  for (const auto& v : cdg.vls)
    std::cout << "cdg vl " << int{v.vl} << " dependencies " << v.dependencies
              << (v.acyclic ? " acyclic" : " CYCLE " + routing::describe_cycle(fx.topo, v.cycle))
              << "\n";
  const auto report = routing::make_route_report(fx.topo, *routes);
  const auto c4 = std::chrono::steady_clock::now();
  std::cout << "cdg check " << std::chrono::duration<double>(c3 - c2).count() << " s, route report "
            << std::chrono::duration<double>(c4 - c3).count() << " s\n"
            << "report: " << routing::format_route_report_line(report) << "\n";
  if (!dump.empty()) {
    std::ofstream out(dump);
    routing::dump_lfts(out, fx.topo, *routes);
  }
  return 0;
}
