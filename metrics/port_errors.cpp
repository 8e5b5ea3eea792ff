#include "metrics/port_errors.hpp"

#include <algorithm>

namespace ibsm::metrics {

namespace {

std::uint64_t error_sum(const perfmgr::ErrReading& r) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < perfmgr::kErrCount; ++i)
    if (i != static_cast<std::size_t>(perfmgr::Err::kXmitWait)) sum += r.v[i];
  return sum;
}

}  // namespace

std::string_view error_level_class(ErrorLevel l) {
  switch (l) {
    case ErrorLevel::kNone:
      return "ok";
    case ErrorLevel::kPast:
      return "past";
    case ErrorLevel::kRising:
      return "rising";
    case ErrorLevel::kHigh:
      return "high";
  }
  return "ok";
}

ErrorLevel PortErrors::level(mad::Guid node, unsigned port) const {
  const auto it = by_port.find(Key{node, port});
  return it == by_port.end() ? ErrorLevel::kNone : it->second;
}

ErrorTotals error_totals(const perfmgr::CounterSnapshot& c) {
  ErrorTotals out;
  for (const auto& r : c.ports) {
    out.time = std::max(out.time, r.err.time);
    if (const std::uint64_t total = error_sum(r.err))
      out.ports.emplace(PortErrors::Key{r.guid, r.port}, ErrorTotals::Reading{total, r.err.time});
  }
  return out;
}

PortErrors port_errors(perfmgr::CounterSnapshotPtr now, const ErrorTotals* before) {
  PortErrors out;
  out.now = std::move(now);
  if (!out.now) return out;
  for (const auto& r : out.now->ports) {
    const std::uint64_t total = error_sum(r.err);
    if (total == 0) continue;
    PortErrorRow row{&r, total, total, -1, ErrorLevel::kRising};
    if (before) {
      const auto it = before->ports.find(PortErrors::Key{r.guid, r.port});
      const std::uint64_t was = it == before->ports.end() ? 0 : it->second.total;
      // Totals fall only at `perfmgr clear_counters`: all of today's total is new.
      row.increase = total >= was ? total - was : total;
      const std::time_t from = it == before->ports.end() ? before->time : it->second.time;
      if (from != 0 && r.err.time > from)
        row.per_second = static_cast<double>(row.increase) / static_cast<double>(r.err.time - from);
      row.level = row.increase == 0                  ? ErrorLevel::kPast
                  : row.per_second >= kHighPerSecond ? ErrorLevel::kHigh
                                                     : ErrorLevel::kRising;
    }
    out.rows.push_back(row);
    out.by_port.emplace(PortErrors::Key{r.guid, r.port}, row.level);
  }
  std::stable_sort(out.rows.begin(), out.rows.end(), [](const auto& a, const auto& b) {
    if (a.level != b.level) return a.level > b.level;
    if (a.per_second != b.per_second) return a.per_second > b.per_second;
    return a.total > b.total;
  });
  return out;
}

}  // namespace ibsm::metrics
