// Fuzz target: any bytes as prefix_routes_file (sa/prefix_routes.hpp). Beyond "no
// crash": an error names file:line:column, and an accepted file's routes each come
// from a line of it and resolve to a router of the list or to none.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sa/prefix_routes.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ibsm;
  constexpr std::string_view kTarget = "prefix_routes";
  const std::string_view text = fuzz::as_text(data, size);
  auto r = sa::parse_prefix_routes(text, "prefix-routes.conf");
  if (!r.ok()) {
    fuzz::expect(r.error().message.starts_with("prefix-routes.conf:"), kTarget,
                 "the error does not name the file: " + r.error().message);
    fuzz::expect(r.error().id == sa::kErrPrefixRoutesSyntax, kTarget, "another error ID");
    return 0;
  }
  std::size_t lines = 1;
  for (char c : text)
    lines += c == '\n';
  const std::vector<mad::Guid> routers = {0x10, 0x20};
  for (const sa::PrefixRoute& route : r->routes) {
    fuzz::expect(route.line >= 1 && route.line <= lines, kTarget, "a route names no line");
    fuzz::expect(route.any_router || route.router != 0, kTarget, "a route to GUID 0");
  }
  for (std::uint64_t prefix : {0ull, 0xfe80000000000000ull, 0xfec0000000000001ull}) {
    const mad::Guid g = sa::route_for(*r, prefix, routers);
    fuzz::expect(g == 0 || g == 0x10 || g == 0x20, kTarget, "a route to no router");
  }
  static_cast<void>(sa::routes_without_router(*r, routers));
  return 0;
}
