// Fabrics drawn as a graph of switches (the shapes the up/down and CDG tests need and
// tests/support/builders.hpp does not have: rings, the Petersen graph, random irregular
// graphs), with `hosts` single-port hosts on ports 1..hosts of every switch. Switch i is
// "s<i>"; its inter-switch cables use ports hosts+1, hosts+2, ... in edge order.
#pragma once

#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/fabric.hpp"

namespace ibsm::routing::test {

using Edge = std::pair<unsigned, unsigned>;

inline testsupport::Fabric switch_graph(unsigned switches, const std::vector<Edge>& edges,
                                        unsigned hosts = 1) {
  using testsupport::NodeType;
  testsupport::Fabric f;
  std::vector<unsigned> degree(switches, 0);
  for (const Edge& e : edges) {
    ++degree[e.first];
    ++degree[e.second];
  }
  for (unsigned s = 0; s < switches; ++s) {
    testsupport::Node n;
    n.type = NodeType::kSwitch;
    n.id = n.description = "s" + std::to_string(s);
    n.num_ports = static_cast<std::uint8_t>(hosts + degree[s]);
    f.nodes.push_back(n);
  }
  std::vector<unsigned> next_port(switches, hosts + 1);
  for (const Edge& e : edges)
    f.cables.push_back({{e.first, static_cast<std::uint8_t>(next_port[e.first]++)},
                        {e.second, static_cast<std::uint8_t>(next_port[e.second]++)}});
  for (unsigned s = 0; s < switches; ++s)
    for (unsigned h = 0; h < hosts; ++h) {
      testsupport::Node n;
      n.type = NodeType::kCa;
      n.id = n.description = "h" + std::to_string(s) + "_" + std::to_string(h);
      n.num_ports = 1;
      f.nodes.push_back(n);
      f.cables.push_back({{s, static_cast<std::uint8_t>(h + 1)},
                          {static_cast<std::uint32_t>(f.nodes.size() - 1), 1}});
    }
  testsupport::assign_ibsim_guids(f);
  return f;
}

// Switches 0..n-1 in a cycle: cable i joins s<i> and s<i+1 mod n> (for n > 2, s0 reaches
// s1 on port hosts+1 and every other s<i> reaches s<i+1> on port hosts+2).
inline std::vector<Edge> ring_edges(unsigned n) {
  std::vector<Edge> e;
  for (unsigned i = 0; i < n; ++i)
    e.emplace_back(i, (i + 1) % n);
  return e;
}

// Outer 5-cycle 0..4, spokes i -- i+5, inner pentagram 5..9 (3-regular, girth 5).
inline std::vector<Edge> petersen_edges() {
  std::vector<Edge> e;
  for (unsigned i = 0; i < 5; ++i) {
    e.emplace_back(i, (i + 1) % 5);
    e.emplace_back(i, i + 5);
    e.emplace_back(5 + i, 5 + (i + 2) % 5);
  }
  return e;
}

// A connected irregular graph: a random spanning tree plus `extra` random links (parallel
// links allowed, as cabling does), every switch at most `max_degree` links.
inline std::vector<Edge> random_edges(unsigned n, unsigned extra, unsigned max_degree,
                                      std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Edge> e;
  std::vector<unsigned> degree(n, 0);
  for (unsigned i = 1; i < n; ++i) {
    unsigned p = 0;
    do {
      p = std::uniform_int_distribution<unsigned>(0, i - 1)(rng);
    } while (degree[p] >= max_degree && p + 1 < i);
    e.emplace_back(p, i);
    ++degree[p];
    ++degree[i];
  }
  for (unsigned k = 0; k < extra; ++k) {
    const unsigned a = std::uniform_int_distribution<unsigned>(0, n - 1)(rng);
    const unsigned b = std::uniform_int_distribution<unsigned>(0, n - 1)(rng);
    if (a == b || degree[a] >= max_degree || degree[b] >= max_degree) continue;
    e.emplace_back(a, b);
    ++degree[a];
    ++degree[b];
  }
  return e;
}

}  // namespace ibsm::routing::test
