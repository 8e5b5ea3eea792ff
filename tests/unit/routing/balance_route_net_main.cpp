// routing_balance_route_net <file.net> [engine] [--scatter SEED] [--port-shifting]
//                           [--switch-nodes] [--root GUID]...
// Routes an ibsim net file with the route-balancing inputs of routing/port_balance.hpp
// and prints the all-to-all channel statistics (EFI, unused channels) that routing.md
// 4.3 reports for OpenSM's --scatter-ports and --port-shifting.
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>

#include "routing/analysis.hpp"
#include "routing/cdg.hpp"
#include "routing/engine.hpp"
#include "tests/support/net_file.hpp"
#include "tests/support/to_routing.hpp"

int main(int argc, char** argv) {
  using namespace ibsm;
  if (argc < 2) {
    std::cerr << "usage: routing_balance_route_net <file.net> [engine] [--scatter SEED] "
                 "[--port-shifting] [--switch-nodes] [--root GUID]...\n";
    return 2;
  }
  std::string engine_name = "minhop";
  routing::EngineConfig config;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--scatter" && i + 1 < argc) {
      config.scatter_seed = static_cast<std::uint32_t>(std::stoul(argv[++i]));
    } else if (a == "--port-shifting") {
      config.port_shifting = true;
    } else if (a == "--switch-nodes") {
      config.port_profile_switch_nodes = true;
    } else if (a == "--root" && i + 1 < argc) {
      config.root_guids.push_back(std::stoull(argv[++i], nullptr, 0));
    } else {
      engine_name = a;
    }
  }
  auto fabric = testsupport::load_net_file(argv[1]);
  if (!fabric) {
    std::cerr << to_string(fabric.error()) << "\n";
    return 1;
  }
  const auto fx = testsupport::to_routing(*fabric);
  auto engine = routing::make_engine(engine_name, config);
  if (!engine) {
    std::cerr << "unknown engine " << engine_name << "\n";
    return 2;
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto routes = engine->route(fx.topo);
  const auto t1 = std::chrono::steady_clock::now();
  if (!routes) {
    std::cerr << to_string(routes.error()) << "\n";
    return 1;
  }
  const auto pairs = routing::check_all_pairs(fx.topo, *routes);
  const auto loads = routing::channel_loads(fx.topo, *routes);
  const auto cdg = routing::check_channel_dependencies(fx.topo, *routes);
  std::cout << "routing " << std::chrono::duration<double>(t1 - t0).count() << " s; pairs "
            << pairs.pairs << " delivered " << pairs.delivered << "; channels "
            << loads.channels.size() << " EFI " << loads.max << " mean " << loads.mean << " unused "
            << loads.unused << "; 1-VL CDG " << (cdg.acyclic() ? "acyclic" : "CYCLE") << "\n";
  for (const Error& w : routes->warnings)
    std::cout << "warning: " << to_string(w) << "\n";
  return 0;
}
