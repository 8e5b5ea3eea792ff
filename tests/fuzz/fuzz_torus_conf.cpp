// Fuzz target: any bytes as torus-2QoS.conf (routing/torus/torus_config.hpp) and as
// port_search_ordering_file (routing/torus/port_order_file.hpp). Beyond "no crash":
// errors name the file, and an accepted torus configuration keeps the rules the
// parser promises (radices of at least 1, at least one seed, radix 2 never wraps).
#include <cstddef>
#include <cstdint>
#include <string>

#include "routing/torus/port_order_file.hpp"
#include "routing/torus/torus_config.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ibsm;
  constexpr std::string_view kTarget = "torus_conf";
  const routing::EngineConfig::Text file{"fuzz.conf", std::string(fuzz::as_text(data, size))};
  auto torus = routing::torus::parse_torus_config(file);
  if (!torus.ok()) {
    fuzz::expect(torus.error().message.find("fuzz.conf") != std::string::npos, kTarget,
                 "the error does not name the file: " + torus.error().message);
  } else {
    fuzz::expect(!torus->seeds.empty(), kTarget, "a configuration without seeds was accepted");
    for (unsigned d = 0; d < routing::torus::kDims; ++d)
      fuzz::expect(torus->radix[d] >= 1 && !(torus->radix[d] == 2 && torus->wraps[d]), kTarget,
                   "an impossible radix was accepted");
  }
  auto order = routing::torus::parse_port_order(file);
  if (!order.ok())
    fuzz::expect(order.error().message.find("fuzz.conf") != std::string::npos, kTarget,
                 "a port order error does not name the file: " + order.error().message);
  return 0;
}
