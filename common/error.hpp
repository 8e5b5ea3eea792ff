// Operator-visible errors. Every error an operator can see carries a stable ID
// ("IBSM-1203") so runbooks and searches keep working across releases. Each
// module owns a range and lists its IDs in its own catalog table (<module>/errors.hpp);
// docs/errors.md is generated from those tables and checked by a test.
//
// Ranges: 1xxx mad, 2xxx sm, 3xxx routing, 4xxx partitions, 5xxx conf, 6xxx agent,
// 9xxx files (common/ 90xx, cabling/ 91xx).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ibsm {

// The numeric part of an error ID. Modules declare named constants of this type.
struct ErrorId {
  std::uint16_t code = 0;
  constexpr bool operator==(const ErrorId&) const = default;
};

struct Error {
  ErrorId id;
  std::string message;
};

// One row of an error catalog: what the operator reads in docs/errors.md.
struct ErrorInfo {
  ErrorId id;
  std::string_view title;
  std::string_view meaning;
  std::string_view action;
};

// "IBSM-1203"
std::string format_error_id(ErrorId id);

// "IBSM-1203: <message>"
std::string to_string(const Error& e);

}  // namespace ibsm
