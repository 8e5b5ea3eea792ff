// Small helpers shared by the routing tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include "routing/engine.hpp"
#include "tests/support/fabric.hpp"
#include "tests/support/net_file.hpp"
#include "tests/support/to_routing.hpp"

namespace ibsm::routing::test {

// A ring of four switches, a host on port 3 of each:
//
//    h0 -[ r0 ]2---1[ r1 ]- h1
//          1|         |2
//          2|         |1
//    h3 -[ r3 ]1---2[ r2 ]- h2
inline constexpr std::string_view kRingOfFour = R"(Switch 3 "r0"
[1] "r3"[2]
[2] "r1"[1]
[3] "h0"[1]

Switch 3 "r1"
[1] "r0"[2]
[2] "r2"[1]
[3] "h1"[1]

Switch 3 "r2"
[1] "r1"[2]
[2] "r3"[1]
[3] "h2"[1]

Switch 3 "r3"
[1] "r2"[2]
[2] "r0"[1]
[3] "h3"[1]

Hca 1 "h0"
[1] "r0"[3]
Hca 1 "h1"
[1] "r1"[3]
Hca 1 "h2"
[1] "r2"[3]
Hca 1 "h3"
[1] "r3"[3]
)";

// ibsim-utils' net.2sw2path4hca: two switches joined by two parallel links, a host
// on each of ports 1 and 2 of each switch. Shared by the golden and dump tests.
inline constexpr std::string_view kTwoSwitchesParallelLinks = R"(Switch 8 "Switch1"
[1] "Hca1"[1]
[2] "Hca3"[1]
[3] "Switch2"[3]
[5] "Switch2"[5]

Switch 8 "Switch2"
[1] "Hca2"[1]
[2] "Hca4"[1]
[3] "Switch1"[3]
[5] "Switch1"[5]

Hca 2 "Hca1"
[1] "Switch1"[1]

Hca 2 "Hca2"
[1] "Switch2"[1]

Hca 2 "Hca3"
[1] "Switch1"[2]

Hca 2 "Hca4"
[1] "Switch2"[2]
)";

// Directory of the shared benchmark fabrics: $IBSM_TOPOLOGIES, as for bench/, else
// ../shared/topologies beside the source tree (IBSM_TOPOLOGIES_DIR, set by meson).
inline std::string topologies_dir() {
  const char* env = std::getenv("IBSM_TOPOLOGIES");
  return env != nullptr ? env : IBSM_TOPOLOGIES_DIR;
}

inline std::string shared_net(const std::string& name) {
  return topologies_dir() + "/" + name;
}

inline bool have_file(const std::string& path) {
  return std::filesystem::exists(path);
}

inline Routes route_with(const Topology& topo, std::string_view engine = "minhop") {
  auto e = make_engine(engine);
  EXPECT_NE(e, nullptr);
  if (!e) return {};
  auto r = e->route(topo);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : to_string(r.error()));
  return r.ok() ? std::move(r).value() : Routes{};
}

inline testsupport::Fabric parse_or_fail(std::string_view net) {
  auto f = testsupport::parse_net(net, "inline.net");
  EXPECT_TRUE(f.ok()) << (f.ok() ? "" : to_string(f.error()));
  return f.ok() ? std::move(f).value() : testsupport::Fabric{};
}

}  // namespace ibsm::routing::test
