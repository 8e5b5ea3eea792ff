#include "ctl/event_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "ctl/errors.hpp"

namespace ibsm::ctl {

void rotate_files(const std::string& path, unsigned keep) {
  if (keep == 0) {
    std::remove(path.c_str());
    return;
  }
  std::remove((path + "." + std::to_string(keep)).c_str());
  for (unsigned i = keep; i > 1; --i)
    std::rename((path + "." + std::to_string(i - 1)).c_str(),
                (path + "." + std::to_string(i)).c_str());
  std::rename(path.c_str(), (path + ".1").c_str());
}

EventFileWriter::EventFileWriter(ops::EventBus& bus, Logger log, EventFileSettings settings)
    : bus_(bus), log_(std::move(log)), settings_(std::move(settings)) {}

EventFileWriter::~EventFileWriter() {
  stop();
}

void EventFileWriter::start() {
  if (settings_.path.empty()) return;
  sub_ = bus_.subscribe(settings_.queue);
  open();  // a failure is logged; run() retries
  thread_ = std::thread([this] { run(); });
}

void EventFileWriter::stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool EventFileWriter::open() {
  fd_ = ::open(settings_.path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
  if (fd_ < 0) {
    log_->error("{}: cannot open events file {}: {}", format_error_id(kErrEventsFile),
                settings_.path, std::strerror(errno));
    return false;
  }
  struct stat st {};
  size_ = ::fstat(fd_, &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
  return true;
}

void EventFileWriter::rotate() {
  ::close(fd_);
  fd_ = -1;
  rotate_files(settings_.path, settings_.keep);
  open();
}

bool EventFileWriter::write_chunk(std::string& chunk) {
  std::size_t off = 0;
  while (off < chunk.size()) {
    const ssize_t n = ::write(fd_, chunk.data() + off, chunk.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      log_->error("{}: cannot write events file {}: {}", format_error_id(kErrEventsFile),
                  settings_.path, std::strerror(errno));
      ::close(fd_);
      fd_ = -1;
      failed_at_ = std::chrono::steady_clock::now();
      chunk.clear();
      return false;
    }
    off += static_cast<std::size_t>(n);
  }
  size_ += off;
  chunk.clear();
  return true;
}

void EventFileWriter::run() {
  while (!stop_.load()) {
    sub_->wait(std::chrono::milliseconds(200));
    auto events = sub_->take();
    if (events.empty()) continue;
    if (fd_ < 0) {
      // Reopened at most every 10 s; events meanwhile are lost (and said so to readers).
      if (std::chrono::steady_clock::now() - failed_at_ < std::chrono::seconds(10)) continue;
      if (!open()) {
        failed_at_ = std::chrono::steady_clock::now();
        continue;
      }
    }
    std::string chunk;
    for (const auto& e : events) {
      std::string line = ops::encode_json(*e);
      line += '\n';
      // A file never grows past max_bytes by more than one line: rotated before it would.
      if (settings_.max_bytes > 0 && size_ + chunk.size() > 0 &&
          size_ + chunk.size() + line.size() > settings_.max_bytes) {
        if (!write_chunk(chunk)) break;
        rotate();
        if (fd_ < 0) break;
      }
      chunk += line;
    }
    if (fd_ >= 0) write_chunk(chunk);
  }
}

}  // namespace ibsm::ctl
