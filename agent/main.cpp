// ibsm-agent: sets up IPoIB, RoCE and the rdma service on a host to match the fabric.
#include <iostream>

#include "agent/cli.hpp"

int main(int argc, char** argv) {
  return ibsm::agent::run_cli(argc, argv, std::cout, std::cerr);
}
