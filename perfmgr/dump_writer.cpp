#include "perfmgr/dump_writer.hpp"

namespace ibsm::perfmgr {

DumpWriter::~DumpWriter() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void DumpWriter::submit(CounterDb db, bool mach, std::string path) {
  {
    std::lock_guard lock(mutex_);
    pending_ = Job{std::move(db), mach, std::move(path)};
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
  }
  wake_.notify_one();
}

void DumpWriter::wait_idle() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [this] { return !pending_ && !busy_; });
}

std::uint64_t DumpWriter::written() const {
  std::lock_guard lock(mutex_);
  return written_;
}

void DumpWriter::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stop_ || pending_.has_value(); });
    if (!pending_) return;  // stopping, nothing left to write
    Job job = std::move(*pending_);
    pending_.reset();
    busy_ = true;
    lock.unlock();
    const Status st = write_counter_dump(job.db, job.mach, job.path);
    if (!st.ok()) log_->error("{}", to_string(st.error()));
    lock.lock();
    busy_ = false;
    ++written_;
    idle_.notify_all();
  }
}

}  // namespace ibsm::perfmgr
