#include "common/log.hpp"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/sinks/syslog_sink.h>
#include <syslog.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include "common/log_modules_detail.hpp"

namespace ibsm {
namespace {

// Tag carried in source_loc.filename by log_sys_event().
constexpr const char* kSysEventTag = "ibsm-sys-event";

// %* : OpenSM's level code, "0x02".
class LevelCodeFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    char buf[8];
    const int n = std::snprintf(buf, sizeof buf, "0x%02X", opensm_level_code(msg.level));
    dest.append(buf, buf + n);
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<LevelCodeFlag>();
  }
};

// %& : thread id in hex, as OpenSM prints it.
class ThreadHexFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    char buf[24];
    const int n = std::snprintf(buf, sizeof buf, "%04zX", msg.thread_id);
    dest.append(buf, buf + n);
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<ThreadHexFlag>();
  }
};

std::unique_ptr<spdlog::formatter> opensm_formatter() {
  auto f = std::make_unique<spdlog::pattern_formatter>();
  f->add_flag<LevelCodeFlag>('*').add_flag<ThreadHexFlag>('&');
  f->set_pattern("%b %d %H:%M:%S %f [%&] %* -> %v");
  return f;
}

// The log file (or stdout/stderr) with OpenSM's size limit and reopen.
class OpensmFileSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  OpensmFileSink(std::string path, bool accumulate, std::uint64_t max_bytes, bool flush_each)
      : path_(std::move(path)), max_bytes_(max_bytes), flush_each_(flush_each) {
    if (path_ == "stdout" || path_.empty()) {
      file_ = stdout;
    } else if (path_ == "stderr") {
      file_ = stderr;
    } else {
      file_ = std::fopen(path_.c_str(), accumulate ? "a" : "w");
      if (file_ == nullptr) {
        throw std::runtime_error("cannot open " + path_ + ": " + std::strerror(errno));
      }
      owned_ = true;
      size_ = current_size();
    }
  }
  ~OpensmFileSink() override {
    if (owned_) std::fclose(file_);
  }

  bool reopen() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!owned_) return true;
    std::FILE* f = std::fopen(path_.c_str(), "a");
    if (f == nullptr) return false;
    std::fclose(file_);
    file_ = f;
    size_ = current_size();
    return true;
  }

  // The module loggers writing here (common/log_modules.hpp).
  const std::shared_ptr<detail::ModuleLoggers>& modules() const { return modules_; }
  void set_modules(std::shared_ptr<detail::ModuleLoggers> m) { modules_ = std::move(m); }

  void set_limits(std::uint64_t max_bytes, bool flush_each) {
    std::lock_guard<std::mutex> lock(mutex_);
    max_bytes_ = max_bytes;
    flush_each_ = flush_each;
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t buf;
    formatter_->format(msg, buf);
    std::fwrite(buf.data(), 1, buf.size(), file_);
    size_ += buf.size();
    if (flush_each_ || msg.level >= spdlog::level::warn) std::fflush(file_);
    if (owned_ && max_bytes_ != 0 && size_ > max_bytes_) truncate();
  }
  void flush_() override { std::fflush(file_); }

 private:
  std::uint64_t current_size() {
    std::fseek(file_, 0, SEEK_END);
    const long pos = std::ftell(file_);
    return pos < 0 ? 0 : static_cast<std::uint64_t>(pos);
  }

  // As OpenSM: start the file over from zero and keep logging.
  void truncate() {
    std::fflush(file_);
    if (::ftruncate(::fileno(file_), 0) == 0) {
      std::rewind(file_);
      size_ = 0;
    }
  }

  std::string path_;
  std::FILE* file_ = nullptr;
  bool owned_ = false;
  std::uint64_t size_ = 0;
  std::uint64_t max_bytes_;
  bool flush_each_;
  std::shared_ptr<detail::ModuleLoggers> modules_;
};

// Passes on errors, warnings and system events only (what OpenSM sends to syslog).
class ImportantOnlySink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit ImportantOnlySink(spdlog::sink_ptr target) : target_(std::move(target)) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    const bool sys_event =
        msg.source.filename != nullptr && std::strcmp(msg.source.filename, kSysEventTag) == 0;
    if (sys_event || msg.level >= spdlog::level::warn) target_->log(msg);
  }
  void flush_() override { target_->flush(); }

 private:
  spdlog::sink_ptr target_;
};

void apply_levels(spdlog::logger& logger, unsigned flags) {
  const auto file_level = level_for_flags(flags);
  const auto& sinks = logger.sinks();
  sinks[0]->set_level(file_level);
  // System events are logged at info; they must reach the syslog sink even
  // when the file shows errors only.
  const bool has_important = sinks.size() > 1;
  logger.set_level(has_important ? std::min(file_level, spdlog::level::info) : file_level);
}

spdlog::sink_ptr syslog_sink(const LogSettings& s) {
  auto sink = std::make_shared<spdlog::sinks::syslog_sink_mt>(s.name, LOG_PID, LOG_DAEMON, true);
  sink->set_pattern(s.syslog_prefix.empty() ? "%v" : s.syslog_prefix + " %v");
  return sink;
}

}  // namespace

spdlog::level::level_enum level_for_flags(unsigned flags) {
  if (flags & 0x38) return spdlog::level::trace;  // debug, funcs, frames
  if (flags & 0x04) return spdlog::level::debug;  // verbose
  if (flags & 0x02) return spdlog::level::info;
  if (flags & 0x01) return spdlog::level::err;
  return spdlog::level::critical;
}

unsigned opensm_level_code(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace:
      return 0x08;
    case spdlog::level::debug:
      return 0x04;
    case spdlog::level::info:
      return 0x02;
    default:
      return 0x01;
  }
}

Logger make_logger(const LogSettings& s, spdlog::sink_ptr important) {
  auto file = std::make_shared<OpensmFileSink>(s.file, s.accumulate, s.max_bytes, s.flush_each);
  file->set_formatter(opensm_formatter());
  std::vector<spdlog::sink_ptr> sinks{file};
  if (important) sinks.push_back(std::make_shared<ImportantOnlySink>(std::move(important)));
  auto modules = std::make_shared<detail::ModuleLoggers>(s.name);
  if (sinks.size() > 1) modules->attach(sinks[1]);
  modules->set_global(s.flags, s.flush_each);
  file->set_modules(std::move(modules));
  auto logger = std::make_shared<spdlog::logger>(s.name, sinks.begin(), sinks.end());
  apply_levels(*logger, s.flags);
  file->modules()->attach_root(logger);
  logger->flush_on(s.flush_each ? spdlog::level::trace : spdlog::level::warn);
  return logger;
}

Logger make_logger(const LogSettings& s) {
  return make_logger(s, s.syslog ? syslog_sink(s) : nullptr);
}

void log_sys_event(const Logger& logger, std::string_view text) {
  logger->log(spdlog::source_loc{kSysEventTag, 1, ""}, spdlog::level::info, text);
}

bool reopen_log(const Logger& logger) {
  for (const auto& sink : logger->sinks()) {
    if (auto f = std::dynamic_pointer_cast<OpensmFileSink>(sink)) return f->reopen();
  }
  return true;
}

void update_log_settings(const Logger& logger, const LogSettings& s) {
  for (const auto& sink : logger->sinks()) {
    if (auto f = std::dynamic_pointer_cast<OpensmFileSink>(sink)) {
      f->set_limits(s.max_bytes, s.flush_each);
      apply_levels(*logger, s.flags);
      if (f->modules()) f->modules()->set_global(s.flags, s.flush_each);
    }
  }
  logger->flush_on(s.flush_each ? spdlog::level::trace : spdlog::level::warn);
}

namespace detail {

std::pair<ModuleLoggers*, spdlog::sink_ptr> module_loggers_of(const Logger& root) {
  if (!root || root->sinks().empty()) return {nullptr, nullptr};
  auto f = std::dynamic_pointer_cast<OpensmFileSink>(root->sinks()[0]);
  if (!f || !f->modules()) return {nullptr, nullptr};
  return {f->modules().get(), f};
}

}  // namespace detail

Logger null_logger() {
  return std::make_shared<spdlog::logger>("null", std::make_shared<spdlog::sinks::null_sink_mt>());
}

}  // namespace ibsm
