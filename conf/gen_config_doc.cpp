// Prints docs/configuration.md (see conf/config_doc.hpp).
#include <iostream>

#include "conf/config_doc.hpp"

int main() {
  std::cout << ibsm::conf::configuration_markdown();
  return std::cout.good() ? 0 : 1;
}
