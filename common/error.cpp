#include "common/error.hpp"

#include <cstdio>

namespace ibsm {

std::string format_error_id(ErrorId id) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "IBSM-%04u", static_cast<unsigned>(id.code));
  return buf;
}

std::string to_string(const Error& e) {
  return format_error_id(e.id) + ": " + e.message;
}

}  // namespace ibsm
