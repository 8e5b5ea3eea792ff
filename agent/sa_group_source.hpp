// The group-MTU seam: where the IB MTU of a partition's IPoIB broadcast group comes
// from. UmadGroupMtuSource asks the Subnet Administrator through libibumad (also on
// simulated ports under umad2sim); unit tests use a fake.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "common/result.hpp"

namespace ibsm::agent {

class GroupMtuSource {
 public:
  virtual ~GroupMtuSource() = default;
  // The IB MTU in bytes (256..4096) of the broadcast group of `pkey`'s partition, as the
  // SA of `device`/`port`'s subnet reports it. Errors: kGroupMtuNoAnswer (nothing came
  // back), kGroupMtuRejected (the SA answered, but without a usable record).
  virtual Result<int> broadcast_mtu(const std::string& device, int port, std::uint16_t pkey) = 0;
};

class UmadGroupMtuSource final : public GroupMtuSource {
 public:
  struct Timing {
    std::chrono::milliseconds deadline{1000};  // per attempt
    int retries = 2;                           // attempts after the first
  };
  UmadGroupMtuSource() = default;
  explicit UmadGroupMtuSource(Timing timing) : timing_(timing) {}
  ~UmadGroupMtuSource() override;
  UmadGroupMtuSource(const UmadGroupMtuSource&) = delete;
  UmadGroupMtuSource& operator=(const UmadGroupMtuSource&) = delete;

  Result<int> broadcast_mtu(const std::string& device, int port, std::uint16_t pkey) override;

 private:
  struct OpenPort {
    int fd = -1;
    int agent = -1;
  };
  // Opens the port and registers a SubnAdm agent once per port and run: under umad2sim
  // a MAD of a class the process has not registered would crash it.
  Result<OpenPort> open(const std::string& device, int port);

  Timing timing_;
  std::map<std::pair<std::string, int>, OpenPort> ports_;
  std::uint32_t next_tid_ = 0;
};

}  // namespace ibsm::agent
