// `ibsm-agent ping-responder`: answers ibping on one port, as `ibping -S` does, so
// that `ibsm-agent test` (and any ibping) on another host reaches this one without
// infiniband-diags' server running here. Registers the vendor class 0x32 with the
// OpenIB OUI through libibumad (also on simulated ports under umad2sim, which crashes
// a process receiving a class it has not registered: this one registers exactly the
// class it is sent) and echoes each request with this host's name (ibping_mad.hpp).
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace ibsm::agent {

class UmadPingResponder {
 public:
  UmadPingResponder() = default;
  ~UmadPingResponder();
  UmadPingResponder(const UmadPingResponder&) = delete;
  UmadPingResponder& operator=(const UmadPingResponder&) = delete;

  // Opens `device`/`port` (empty device: libibumad's default, the first port) and
  // registers the ping class. kPingResponderFailed names what failed.
  Status open(const std::string& device, int port);
  // Answers requests until `stop` is set (checked at least every `tick_ms`); calls
  // `answered` with the requester's LID after each answer.
  Status serve(const std::string& host, const std::atomic<bool>& stop, int tick_ms,
               const std::function<void(unsigned lid)>& answered);

 private:
  int fd_ = -1;
  int agent_ = -1;
  std::vector<int> guards_;
  std::string where_;
};

}  // namespace ibsm::agent
