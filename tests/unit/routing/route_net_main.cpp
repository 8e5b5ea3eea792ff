// routing_route_net <file.net> [engine] [--lmc N] [--root GUID]... [--max-vls N] [--dump FILE]
// Routes an ibsim net file in-process and prints the routing time and the all-to-all
// channel statistics used in docs/routing.md.
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <string>

#include "routing/analysis.hpp"
#include "routing/cdg.hpp"
#include "routing/engine.hpp"
#include "routing/lft_dump.hpp"
#include "routing/route_report.hpp"
#include "tests/support/net_file.hpp"
#include "tests/support/to_routing.hpp"

int main(int argc, char** argv) {
  using namespace ibsm;
  if (argc < 2) {
    std::cerr << "usage: routing_route_net <file.net> [engine] [--lmc N] [--root GUID]... "
                 "[--max-vls N] [--dump FILE]\n";
    return 2;
  }
  std::string engine_name = "minhop";
  std::string dump;
  unsigned lmc = 0;
  routing::EngineConfig config;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--lmc" && i + 1 < argc) {
      lmc = static_cast<unsigned>(std::atoi(argv[++i]));
    } else if (a == "--root" && i + 1 < argc) {
      config.root_guids.push_back(std::stoull(argv[++i], nullptr, 0));
    } else if (a == "--max-vls" && i + 1 < argc) {
      config.max_vls = static_cast<unsigned>(std::atoi(argv[++i]));
    } else if (a == "--dump" && i + 1 < argc) {
      dump = argv[++i];
    } else {
      engine_name = a;
    }
  }
  auto fabric = testsupport::load_net_file(argv[1]);
  if (!fabric) {
    std::cerr << to_string(fabric.error()) << "\n";
    return 1;
  }
  const auto fx = testsupport::to_routing(*fabric, static_cast<std::uint8_t>(lmc));
  auto engine = routing::make_engine(engine_name, config);
  if (!engine) {
    std::cerr << "unknown engine " << engine_name << "\n";
    return 2;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  auto routes = engine->route(fx.topo);
  const std::clock_t c1 = std::clock();
  const auto t1 = std::chrono::steady_clock::now();
  if (!routes) {
    std::cerr << to_string(routes.error()) << "\n";
    return 1;
  }
  std::cout << "switches " << fx.topo.switches.size() << " end ports " << fx.topo.end_ports.size()
            << "\nrouting " << std::chrono::duration<double>(t1 - t0).count() << " s wall, "
            << static_cast<double>(c1 - c0) / CLOCKS_PER_SEC << " s cpu\n";
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
