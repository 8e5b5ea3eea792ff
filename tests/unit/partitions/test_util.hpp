// Helpers shared by the partitions unit tests.
#pragma once

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "partitions/diagnostic.hpp"
#include "partitions/errors.hpp"

namespace ibsm::partitions::test {

inline std::string data_path(const std::string& name) {
  const char* dir = std::getenv("IBSM_PARTITIONS_TEST_DATA");
  return std::string(dir ? dir : "tests/unit/partitions/data") + "/" + name;
}

inline std::string read_data(const std::string& name) {
  std::ifstream in(data_path(name), std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline int count_id(const std::vector<Diagnostic>& d, ErrorId id) {
  int n = 0;
  for (const auto& x : d)
    n += x.id == id;
  return n;
}

inline const Diagnostic* first_with(const std::vector<Diagnostic>& d, ErrorId id) {
  for (const auto& x : d)
    if (x.id == id) return &x;
  return nullptr;
}

}  // namespace ibsm::partitions::test
