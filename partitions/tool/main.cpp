// ibsm-part: inspect and edit partitions.conf (see ibsm-part(8)).
#include <iostream>
#include <string>
#include <vector>

#include "partitions/tool/commands.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return ibsm::partitions::run_ibsm_part(args, std::cout, std::cerr);
}
