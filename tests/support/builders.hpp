// Programmatic fabrics for tests and benchmarks, wired by the rules of routing.md 5.2.
// Nodes are created hosts-last per switch level and GUIDs follow ibsim's defaults, so
// write_net() of a built fabric describes the same GUIDs to ibsim.
#pragma once

#include <array>
#include <cstdint>

#include "tests/support/fabric.hpp"

namespace ibsm::testsupport {

// Two-level fat tree: `leaves` leaves with `hosts_per_leaf` hosts on ports 1..H; leaf l's
// ports H+1+s*p .. H+(s+1)*p go to spine s (p = links_per_pair parallel cables), landing on
// spine ports l*p+1 ... Names: "leaf<l>", "spine<s>", hosts "h<l>_<i>".
Fabric two_level_fat_tree(unsigned leaves, unsigned hosts_per_leaf, unsigned spines,
                          unsigned links_per_pair = 1);

// k-ary n-tree (Petrini/Vanneschi): n levels of k^(n-1) switches with 2k ports, k^n hosts.
// Switch <level l, index w> up port k+1+j goes to <l+1, w with base-k digit l set to j>,
// arriving on down port 1 + (digit l of w). Names: "sw<l>_<w>", hosts "h<w>_<i>".
Fabric kary_ntree(unsigned k, unsigned n);

// Three-level folded Clos as routing.md 5.2 FT3: `pods` pods of `leaves` leaves and `aggrs`
// aggregation switches; leaf pLl has `hosts` hosts on ports 1..hosts and port hosts+1+a to
// aggr pAa port l+1; aggr pAa port leaves+1+j goes to core c<a>_<j> port p+1 (`cores`
// cores per aggr index). Names: "p<p>l<l>", "p<p>a<a>", "c<a>_<j>", hosts "h<p>_<l>_<i>".
Fabric folded_clos3(unsigned pods, unsigned leaves, unsigned aggrs, unsigned cores, unsigned hosts);

// Torus or mesh of dims[0] x dims[1] x dims[2] switches (use 1 for unused dimensions),
// `hosts` hosts per switch on ports 1..hosts, then port hosts+1+2d = +d and hosts+2+2d = -d.
// With wrap[d] the +d port of the last switch goes to the -d port of the first. A
// wrapped dimension of size 2 therefore has two parallel cables between its switches.
// Switch (x,y,z) is node "s<x>_<y>_<z>" with index x*Y*Z + y*Z + z; hosts "h<x>_<y>_<z>_<i>".
Fabric torus(std::array<unsigned, 3> dims, unsigned hosts,
             std::array<bool, 3> wrap = {true, true, true});

}  // namespace ibsm::testsupport
