// The control server's workers: a bounded set of threads that compute answers (format
// a report from the published snapshot, format a PerfMgr dump from the counter snapshot
// the SM handed over), so that one client's long request does not hold up the socket
// thread or another client. Threads are started on demand, when every running one is
// busy, up to a fixed maximum, and stay until stop(): a pool never holds more threads
// than it once needed at the same time.
#pragma once

#include <time.h>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ibsm::ctl {

class WorkerPool {
 public:
  explicit WorkerPool(std::size_t max_threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  struct Posted {
    bool queued = false;       // false: no thread runs and none could be started
    bool grow_failed = false;  // every thread was busy and another could not be started
  };
  // Queues `job` for the first free thread. A job must not throw (wrap it).
  Posted post(std::function<void()> job);

  // Starts `n` threads now (no more than the maximum); returns how many run.
  std::size_t prestart(std::size_t n);
  // Lets the running jobs end and joins every thread; queued jobs are dropped.
  void stop();

  std::size_t threads() const;
  // CPU time of the pool's threads so far (their pthread CPU clocks), for benchmarks.
  double cpu_seconds() const;

 private:
  bool start_thread_locked();  // with mu_ held
  void run();

  const std::size_t max_threads_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  std::vector<clockid_t> clocks_;
  std::size_t idle_ = 0;
  bool stopping_ = false;
};

}  // namespace ibsm::ctl
