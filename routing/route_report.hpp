// One summary of the quality of a set of forwarding tables, graded from the tables alone
// (routing.md 3.1): (source end port, destination LID) pairs that are not delivered, to
// CAs and router ports and to switches' port 0 counted apart, whether each VL's channel
// dependency graph is acyclic, the edge forwarding index (all-to-all routes on the
// busiest inter-switch channel) and its mean. The SM computes it after every routing
// run, logs one line and writes the long form next to guid2lid.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "routing/cdg.hpp"
#include "routing/engine.hpp"

namespace ibsm::routing {

struct RouteReport {
  // (source end port, destination LID) pairs over every LID of the fabric: CA and router
  // ports, and switch port 0 (management: SMA, PMA; what ibroute and perfquery read).
  std::size_t pairs = 0;
  std::size_t unreachable = 0;
  std::size_t loops = 0;     // of unreachable, those caught in a forwarding loop
  std::size_t ca_pairs = 0;  // of pairs, those to CA and router ports
  std::size_t ca_unreachable = 0;
  std::size_t switch_pairs = 0;  // of pairs, those to a switch's port 0
  std::size_t switch_unreachable = 0;
  std::vector<std::string> unreachable_examples;
  CdgReport cdg;
  std::uint64_t max_efi = 0;
  double mean_efi = 0;
  std::size_t channels = 0;
  std::size_t unused_channels = 0;
  std::vector<std::uint8_t> vls_used;

  bool acyclic() const { return cdg.acyclic(); }
  // Every source reaches every destination LID. An engine that claims completeness
  // (Engine::complete) and fails this is discarded like one whose claimed deadlock
  // freedom fails (sm/routes/router.cpp).
  bool complete() const { return unreachable == 0; }
};

// Without cdg_options.vl_of, paths are put on VL routes.path_sl.sl(source switch, dlid)
// (VL 0 for engines without SLs).
RouteReport make_route_report(const Topology& topo, const Routes& routes,
                              const CdgOptions& cdg_options = {});

// "pairs 1200 unreachable 0 (CA 0 of 1000, switch 0 of 200; loops 0), CDG acyclic, EFI
// max 630 mean 315.2 over 96 channels (0 unused), VLs 0"
std::string format_route_report_line(const RouteReport& r);

// The long form for ibsm-route-report.txt: the line's facts one per line, examples of
// unreachable pairs and the cycle found on each cyclic VL.
std::string format_route_report_text(const Topology& topo, const RouteReport& r,
                                     std::string_view engine, double routing_ms);

}  // namespace ibsm::routing
