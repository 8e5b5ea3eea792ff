#include "ctl/worker_pool.hpp"

#include <pthread.h>

#include <system_error>
#include <utility>

namespace ibsm::ctl {

WorkerPool::WorkerPool(std::size_t max_threads)
    : max_threads_(max_threads == 0 ? 1 : max_threads) {}

WorkerPool::~WorkerPool() {
  stop();
}

bool WorkerPool::start_thread_locked() {
  if (threads_.size() >= max_threads_) return false;
  try {
    threads_.emplace_back([this] { run(); });
  } catch (const std::system_error&) {
    return false;  // EAGAIN: the process or the unit (TasksMax) is out of threads
  }
  clockid_t clock{};
  if (::pthread_getcpuclockid(threads_.back().native_handle(), &clock) == 0)
    clocks_.push_back(clock);
  return true;
}

std::size_t WorkerPool::prestart(std::size_t n) {
  std::lock_guard lock(mu_);
  while (!stopping_ && threads_.size() < n && start_thread_locked()) {
  }
  return threads_.size();
}

WorkerPool::Posted WorkerPool::post(std::function<void()> job) {
  Posted p;
  {
    std::lock_guard lock(mu_);
    if (stopping_) return p;
    // Every running thread is taken by an earlier job: one more, up to the maximum.
    if (jobs_.size() + 1 > idle_ && threads_.size() < max_threads_)
      p.grow_failed = !start_thread_locked();
    if (threads_.empty()) return p;
    jobs_.push_back(std::move(job));
    p.queued = true;
  }
  cv_.notify_one();
  return p;
}

void WorkerPool::run() {
  std::unique_lock lock(mu_);
  for (;;) {
    ++idle_;
    cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    --idle_;
    if (stopping_) return;
    auto job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    try {
      job();
    } catch (...) {  // NOLINT(bugprone-empty-catch): a job owns its errors; the worker goes on
    }
    lock.lock();
  }
}

void WorkerPool::stop() {
  std::vector<std::thread> joining;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    jobs_.clear();
    joining.swap(threads_);
    clocks_.clear();
  }
  cv_.notify_all();
  for (auto& t : joining)
    t.join();
}

std::size_t WorkerPool::threads() const {
  std::lock_guard lock(mu_);
  return threads_.size();
}

double WorkerPool::cpu_seconds() const {
  std::lock_guard lock(mu_);
  double sum = 0;
  for (clockid_t c : clocks_) {
    timespec ts{};
    if (::clock_gettime(c, &ts) == 0)
      sum += static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
  }
  return sum;
}

}  // namespace ibsm::ctl
