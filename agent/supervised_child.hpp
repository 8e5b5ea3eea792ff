// A long-running helper the watch keeps alive beside its passes (the ibping responder
// when the node file asks for it): started with no signal blocked (watch blocks the
// ones it takes with sigtimedwait), its output going where watch's goes (the journal),
// started again when it exits — at most once per `backoff`, so a port that cannot be
// served does not spin — and stopped with SIGTERM when the watch ends.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <ostream>
#include <string>
#include <vector>

namespace ibsm::agent {

class SupervisedChild {
 public:
  SupervisedChild(std::vector<std::string> argv, std::chrono::milliseconds backoff,
                  std::ostream& log)
      : argv_(std::move(argv)), backoff_(backoff), log_(log) {}
  ~SupervisedChild() { stop(); }
  SupervisedChild(const SupervisedChild&) = delete;
  SupervisedChild& operator=(const SupervisedChild&) = delete;

  // Reaps the child if it exited (logging how) and starts it when it is not running
  // and the backoff since the last start has passed.
  void keep_running();
  // SIGTERM, then SIGKILL after 5 s; waits for it.
  void stop();
  bool running() const { return pid_ > 0; }
  int starts() const { return starts_; }

 private:
  std::vector<std::string> argv_;
  std::chrono::milliseconds backoff_;
  std::ostream& log_;
  pid_t pid_ = -1;
  int starts_ = 0;
  std::chrono::steady_clock::time_point last_start_{};
};

}  // namespace ibsm::agent
