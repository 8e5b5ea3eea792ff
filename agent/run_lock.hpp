// Serialises apply runs (boot unit, hotplug unit, an operator) with flock(2) on
// <root>/run/ibsm-agent.lock; the lock dies with the process.
#pragma once

#include <string>

#include "common/result.hpp"

namespace ibsm::agent {

class RunLock {
 public:
  RunLock() = default;
  ~RunLock();
  RunLock(RunLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;
  RunLock& operator=(RunLock&&) = delete;

  // Fails with kBusy when another run holds the lock.
  static Result<RunLock> acquire(const std::string& path);

 private:
  explicit RunLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace ibsm::agent
