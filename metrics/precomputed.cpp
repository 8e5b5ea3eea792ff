#include "metrics/precomputed.hpp"

#include <spdlog/fmt/fmt.h>
#include <sys/resource.h>
#include <unistd.h>

#include "metrics/errors.hpp"
#include "metrics/exposition.hpp"

namespace ibsm::metrics {

namespace {

template <class T>
bool same(const std::weak_ptr<const T>& w, const std::shared_ptr<const T>& s) {
  return !w.owner_before(s) && !s.owner_before(w) && (s != nullptr) == !w.expired();
}

}  // namespace

Precomputed::Precomputed(const ops::OpsPublisher& snapshots, Logger log)
    : snapshots_(snapshots), log_(std::move(log)) {}

Precomputed::~Precomputed() {
  stop();
}

void Precomputed::start() {
  stopping_ = false;
  thread_ = std::thread([this] { loop(); });
}

void Precomputed::stop() {
  {
    std::lock_guard lock(stop_mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Precomputed::loop() {
  // Below the SM's threads: compressing a big fabric's counters takes seconds of CPU,
  // which a sweep on a busy host should get first (a thread's own nice value, Linux).
  static_cast<void>(::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), kNice));
  std::unique_lock lock(stop_mu_);
  while (!stopping_) {
    lock.unlock();
    try {
      refresh();
    } catch (const std::exception& e) {  // never the SM's problem: log and go on
      const auto snap = snapshots_.current();
      const std::uint64_t generation = snap ? snap->generation : 0;
      if (generation != failed_generation_) {  // once per snapshot, not every poll
        failed_generation_ = generation;
        log_->error("{}",
                    to_string(Error{kErrMetricsPrecompute, fmt::format("metrics: {}", e.what())}));
      }
    }
    lock.lock();
    stop_cv_.wait_for(lock, kPollInterval, [this] { return stopping_; });
  }
}

void Precomputed::note_counters(const perfmgr::CounterSnapshotPtr& c) {
  if (!c || same(counters_seen_, c)) return;
  counters_seen_ = c;
  totals_before_ = std::move(totals_now_);
  totals_now_ = std::make_shared<const ErrorTotals>(error_totals(*c));
}

std::shared_ptr<const StatusParts> Precomputed::status_parts(const ops::OpsSnapshot& s) {
  {
    std::lock_guard lock(mu_);
    if (parts_ && parts_match(*parts_, s)) return parts_;
  }
  std::lock_guard compute(parts_mu_);
  {
    std::lock_guard lock(mu_);  // made meanwhile by another thread?
    if (parts_ && parts_match(*parts_, s)) return parts_;
    // While a big fabric is rebuilt the SM publishes none: keep what was drawn.
    if (parts_ && !s.fabric && parts_->counters == s.perf_counters) return parts_;
  }
  note_counters(s.perf_counters);
  auto parts = metrics::status_parts(s, totals_before_.get());
  std::lock_guard lock(mu_);
  parts_ = parts;
  return parts;
}

std::shared_ptr<const DeflatedPiece> Precomputed::counters_gzip(
    const perfmgr::CounterSnapshotPtr& c) const {
  std::lock_guard lock(mu_);
  return c && gzip_ && same(gzip_of_, c) ? gzip_ : nullptr;
}

void Precomputed::refresh() {
  const auto snap = snapshots_.current();
  if (!snap) return;
  static_cast<void>(status_parts(*snap));
  if (!snap->perf_counters || counters_gzip(snap->perf_counters)) return;
  Exposition exposition(snap);
  Deflater deflater(kCountersGzipLevel);
  for (std::size_t i = 1; i < exposition.parts(); ++i)
    deflater.add(exposition.part(i));
  auto piece = std::make_shared<const DeflatedPiece>(deflater.finish(true));
  log_->debug("metrics: port counters compressed, {} bytes of text to {}", piece->size,
              piece->bytes.size());
  std::lock_guard lock(mu_);
  gzip_ = std::move(piece);
  gzip_of_ = snap->perf_counters;
}

}  // namespace ibsm::metrics
