// The events file (events_file, --events-file): every event as one JSON line,
// written by a thread of its own from a bus subscription, rotated by size
// (FILE -> FILE.1 -> ... -> FILE.<keep>, the oldest removed). A disk too slow for the
// SM's pace drops events (counted, with an events_dropped line), never slows the SM.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "common/log.hpp"
#include "ops/event_bus.hpp"

namespace ibsm::ctl {

struct EventFileSettings {
  std::string path;
  std::uint64_t max_bytes = 64ull << 20;  // rotate beyond this
  unsigned keep = 5;                      // rotated files kept
  std::size_t queue = 65536;              // events the writer may fall behind by
};

class EventFileWriter {
 public:
  EventFileWriter(ops::EventBus& bus, Logger log, EventFileSettings settings);
  ~EventFileWriter();
  EventFileWriter(const EventFileWriter&) = delete;
  EventFileWriter& operator=(const EventFileWriter&) = delete;
  void start();
  void stop();

 private:
  void run();
  bool open();
  void rotate();
  bool write_chunk(std::string& chunk);  // false: the file failed (closed, logged)

  ops::EventBus& bus_;
  Logger log_;
  EventFileSettings settings_;
  std::shared_ptr<ops::Subscription> sub_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::chrono::steady_clock::time_point failed_at_{};
};

// FILE.1 ... FILE.<keep> shifted up by one, FILE renamed FILE.1 (pure file moves).
void rotate_files(const std::string& path, unsigned keep);

}  // namespace ibsm::ctl
