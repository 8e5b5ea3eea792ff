// What the endpoint serves that costs something on a big fabric, made on a thread of
// its own (never the SM's) each time the SM publishes new fabric or counter
// snapshots: the port-counter families of /metrics compressed once per PerfMgr sweep
// (gzip_join.hpp), and the status page's topology and error table once per fabric
// and counter snapshot. The HTTP threads take what is ready with a short lock.
//
// Snapshots are told apart by identity (weak_ptr owners), never kept alive for it:
// on big fabrics the SM lets go of a fabric snapshot before it builds the next.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "common/log.hpp"
#include "metrics/gzip_join.hpp"
#include "metrics/port_errors.hpp"
#include "metrics/status_page.hpp"
#include "ops/ops_publisher.hpp"

namespace ibsm::metrics {

// zlib level of the cached counters: 1 compresses the counters' text about 10:1 at a
// fraction of level 6's time.
inline constexpr int kCountersGzipLevel = 1;
// The thread's nice value: it yields the CPU to the SM's threads.
inline constexpr int kNice = 10;
// How often the thread looks for a new snapshot (an atomic load each time).
inline constexpr std::chrono::milliseconds kPollInterval{500};

class Precomputed {
 public:
  Precomputed(const ops::OpsPublisher& snapshots, Logger log);
  ~Precomputed();
  Precomputed(const Precomputed&) = delete;
  Precomputed& operator=(const Precomputed&) = delete;

  void start();
  void stop();
  // Brings everything up to date with the SM's current snapshot, on the calling
  // thread (the background thread's one step; tests call it directly).
  void refresh();

  // The compressed port-counter families (Exposition parts 1..) of exactly these
  // counters, else null (not made yet).
  std::shared_ptr<const DeflatedPiece> counters_gzip(const perfmgr::CounterSnapshotPtr& c) const;
  // The page parts for this snapshot, made now on the caller's thread if the
  // background thread has not made them yet.
  std::shared_ptr<const StatusParts> status_parts(const ops::OpsSnapshot& s);

 private:
  void loop();
  void note_counters(const perfmgr::CounterSnapshotPtr& c);  // under parts_mu_

  const ops::OpsPublisher& snapshots_;
  Logger log_;

  mutable std::mutex mu_;  // guards the published results below (short holds)
  std::shared_ptr<const DeflatedPiece> gzip_;
  std::weak_ptr<const perfmgr::CounterSnapshot> gzip_of_;
  std::shared_ptr<const StatusParts> parts_;

  std::mutex parts_mu_;  // one status-parts computation at a time, and the rate state
  std::weak_ptr<const perfmgr::CounterSnapshot> counters_seen_;
  std::shared_ptr<const ErrorTotals> totals_now_, totals_before_;

  std::uint64_t failed_generation_ = UINT64_MAX;  // the thread's last IBSM-8703

  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace ibsm::metrics
