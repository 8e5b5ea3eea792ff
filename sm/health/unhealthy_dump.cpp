#include "sm/health/unhealthy_dump.hpp"

#include <fmt/format.h>

#include <ctime>

#include "common/text.hpp"

namespace ibsm::sm::health {

std::string wall_time_text(Clock::TimePoint t, const WallAnchor& anchor) {
  const auto wall = anchor.wall + std::chrono::duration_cast<std::chrono::system_clock::duration>(
                                      t - anchor.steady);
  const std::time_t secs = std::chrono::system_clock::to_time_t(wall);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string format_unhealthy_dump(const std::vector<Decision>& ports, const WallAnchor& anchor) {
  std::string out = "# ibsm unhealthy ports: GUID PORT \"NODE NAME\" CONDITION ACTION SINCE\n";
  for (const Decision& d : ports) {
    std::string name;
    for (char c : d.port.node_name) {
      if (c == '"' || c == '\\') name += '\\';
      name += c;
    }
    out += fmt::format("{} {} \"{}\" {} {} {}\n", hex_guid(d.port.key.node_guid), d.port.key.port,
                       name, condition_name(d.condition), action_name(d.action),
                       wall_time_text(d.since, anchor));
  }
  return out;
}

}  // namespace ibsm::sm::health
