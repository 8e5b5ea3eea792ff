// event_db_dump_file, written off the SM's thread. OpenSM writes its counter dump
// after every PerfMgr sweep on the thread that sweeps; on 112 000 ports formatting it
// alone takes 0.4-1.0 s, which would hold up the SM's loop (traps, SA, the next
// sweep). The PerfMgr hands the writer a copy of the counter database (copies share
// their nodes, so this costs pointers, not counters) and goes on; one thread formats
// and writes it. Only the newest dump matters: a dump still waiting when the next one
// arrives is replaced, never queued behind it.
#pragma once

#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "common/log.hpp"
#include "perfmgr/counter_db.hpp"

namespace ibsm::perfmgr {

class DumpWriter {
 public:
  explicit DumpWriter(Logger log) : log_(std::move(log)) {}
  // Writes what is waiting, then stops.
  ~DumpWriter();
  DumpWriter(const DumpWriter&) = delete;
  DumpWriter& operator=(const DumpWriter&) = delete;

  // Queues `db` to be written to `path` (OpenSM's machine format when `mach`); the
  // thread starts on the first dump.
  void submit(CounterDb db, bool mach, std::string path);
  // Returns once nothing waits and nothing is being written (tests, shutdown).
  void wait_idle();
  std::uint64_t written() const;

 private:
  struct Job {
    CounterDb db;
    bool mach = true;
    std::string path;
  };
  void run();

  Logger log_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  std::optional<Job> pending_;
  bool busy_ = false;
  bool stop_ = false;
  std::uint64_t written_ = 0;
  std::thread thread_;
};

}  // namespace ibsm::perfmgr
