// The group-MTU seam: where the IB MTU of a partition's IPoIB broadcast group comes
// from. UmadGroupMtuSource asks the Subnet Administrator through libibumad (also on
// simulated ports under umad2sim); unit tests use a fake.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "agent/sa_mcmember.hpp"
#include "common/log_limit.hpp"
#include "common/result.hpp"

namespace ibsm::agent {

class GroupMtuSource {
 public:
  virtual ~GroupMtuSource() = default;
  // The MTU and rate of the broadcast group of `pkey`'s partition, as the SA of
  // `device`/`port`'s subnet reports it. Errors: kGroupMtuNoAnswer (nothing came
  // back), kGroupMtuRejected (the SA answered, but without a usable record).
  virtual Result<BroadcastGroup> broadcast_group(const std::string& device, int port,
                                                 std::uint16_t pkey) = 0;
  // PortInfo.NeighborMTU in bytes of the port at `lid` (the local port), as the SA has
  // it: what the SA compares with a group's MTU when the port joins. Same errors.
  virtual Result<int> port_mtu(const std::string& device, int port, unsigned lid) = 0;

  // The IB MTU in bytes (256..4096) of the broadcast group of `pkey`'s partition.
  Result<int> broadcast_mtu(const std::string& device, int port, std::uint16_t pkey) {
    auto g = broadcast_group(device, port, pkey);
    if (!g) return fail(g.error());
    return g->mtu_bytes;
  }
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

  Result<BroadcastGroup> broadcast_group(const std::string& device, int port,
                                         std::uint16_t pkey) override;
  Result<int> port_mtu(const std::string& device, int port, unsigned lid) override;

 private:
  struct OpenPort {
    int fd = -1;
    int agent = -1;
  };
  // Opens the port and registers a SubnAdm agent once per port and run: under umad2sim
  // a MAD of a class the process has not registered would crash it.
  Result<OpenPort> open(const std::string& device, int port);
  // One SubnAdmGet to the port's SM with retries: the answer to the request `encode`
  // builds for a TID (any status), or kGroupMtuNoAnswer naming `what`.
  Result<std::vector<std::uint8_t>> ask(const std::string& device, int port,
                                        const std::string& what,
                                        const std::function<SaMad(std::uint32_t)>& encode);

  Timing timing_;
  std::map<std::pair<std::string, int>, OpenPort> ports_;
  // Ports whose SA did not answer in this run: not asked again (each try costs the
  // whole deadline, and verify asks after planning did).
  std::map<std::pair<std::string, int>, std::string> silent_;
  std::uint32_t next_tid_ = 0;
  // Answers dropped because they did not match their request (kMadAnswerMismatch): one
  // line a second at most on `log_`, with the count of those not shown.
  std::ostream* log_ = nullptr;
  LogLimit drop_log_{std::chrono::seconds(1), 1};  // IBSM-6305: a line a second at most

 public:
  // Where dropped answers are reported (the CLI's stderr); none: counted only.
  void set_log(std::ostream* log) { log_ = log; }
  // Answers dropped so far (tests).
  unsigned dropped() const { return dropped_; }

 private:
  unsigned dropped_ = 0;
  void note_drop(const std::string& what, const char* why, unsigned from_lid);
};

}  // namespace ibsm::agent
