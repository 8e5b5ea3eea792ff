// ibsim net files (the `ibsim` topology format, routing.md 5.1) to and from Fabric.
//
// Supported: Switch/Hca/Ca/Rt records with port lines `[p] "peer"[pp]` (peer port
// defaults to 1, trailing options and ibnetdiscover tails are ignored), descriptions after
// `#`, switch `lid`/`lmc` in the header, and the GUID base lines switchguid=, hcaguids=,
// caguid=, rtguid= (`=` absolute, `+` relative to the last absolute base). Lines ibsim
// ignores are ignored. `include`, `module`, `do` and `@` port aliases are rejected rather
// than half-supported.
#pragma once

#include <string>
#include <string_view>

#include "common/result.hpp"
#include "tests/support/fabric.hpp"

namespace ibsm::testsupport {

// Test-support errors are not operator-visible; they carry no catalogued ID.
inline constexpr ErrorId kNetFileError{0};

// Parses net-file text; errors read "<source_name>:<line>: <what>".
Result<Fabric> parse_net(std::string_view text, std::string_view source_name = "<net>");

Result<Fabric> load_net_file(const std::string& path);

// A net file ibsim accepts and parse_net reads back to the same fabric (GUID base lines
// are emitted where a node's GUID differs from ibsim's default numbering).
std::string write_net(const Fabric& fabric);

}  // namespace ibsm::testsupport
