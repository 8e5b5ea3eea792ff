#include "ops/event.hpp"

#include <cmath>
#include <ctime>

#include <spdlog/fmt/fmt.h>

#include "common/display_text.hpp"
#include "common/escape.hpp"
#include "common/json_writer.hpp"

namespace ibsm::ops {

std::string_view event_type_name(EventType t) {
  switch (t) {
    case EventType::kSmState:
      return "sm_state";
    case EventType::kElection:
      return "election";
    case EventType::kSweepStarted:
      return "sweep_started";
    case EventType::kSweepFinished:
      return "sweep_finished";
    case EventType::kPortState:
      return "port_state";
    case EventType::kLinkUp:
      return "link_up";
    case EventType::kLinkDown:
      return "link_down";
    case EventType::kTopologyDeviation:
      return "topology_deviation";
    case EventType::kPortUnhealthy:
      return "port_unhealthy";
    case EventType::kPortHealthy:
      return "port_healthy";
    case EventType::kTrap:
      return "trap";
    case EventType::kSecurityTrap:
      return "security_trap";
    case EventType::kLidAssigned:
      return "lid_assigned";
    case EventType::kLidChanged:
      return "lid_changed";
    case EventType::kRouting:
      return "routing";
    case EventType::kPartitionsReloaded:
      return "partitions_reloaded";
    case EventType::kMcastGroupCreated:
      return "mcast_group_created";
    case EventType::kMcastGroupDeleted:
      return "mcast_group_deleted";
    case EventType::kConfigReloaded:
      return "config_reloaded";
    case EventType::kControl:
      return "control";
    case EventType::kEventsDropped:
      return "events_dropped";
  }
  return "unknown";
}

const std::vector<EventType>& all_event_types() {
  static const std::vector<EventType> all = {EventType::kSmState,
                                             EventType::kElection,
                                             EventType::kSweepStarted,
                                             EventType::kSweepFinished,
                                             EventType::kPortState,
                                             EventType::kLinkUp,
                                             EventType::kLinkDown,
                                             EventType::kTopologyDeviation,
                                             EventType::kPortUnhealthy,
                                             EventType::kPortHealthy,
                                             EventType::kTrap,
                                             EventType::kSecurityTrap,
                                             EventType::kLidAssigned,
                                             EventType::kLidChanged,
                                             EventType::kRouting,
                                             EventType::kPartitionsReloaded,
                                             EventType::kMcastGroupCreated,
                                             EventType::kMcastGroupDeleted,
                                             EventType::kConfigReloaded,
                                             EventType::kControl,
                                             EventType::kEventsDropped};
  return all;
}

const FieldValue* Event::field(std::string_view key) const {
  for (const EventField& f : fields)
    if (f.key == key) return &f.value;
  return nullptr;
}

void append_json_string(std::string& out, std::string_view s) {
  text::append_json_string(out, s);  // one JSON escaper (common/escape.hpp)
}

std::string format_utc(std::chrono::system_clock::time_point t) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch());
  const std::time_t secs =
      static_cast<std::time_t>(std::chrono::floor<std::chrono::seconds>(ms).count());
  std::tm tm{};
  gmtime_r(&secs, &tm);
  const auto milli =
      static_cast<int>(ms.count() % 1000 < 0 ? ms.count() % 1000 + 1000 : ms.count() % 1000);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, milli);
}

namespace {

// A value the text form writes without quotes: display text with no blank, '"', '='
// or '\\'.
bool bare_word(std::string_view x) {
  return x.find_first_of(" \"=\\") == std::string_view::npos && text::is_display_text(x);
}

// A value of the text form (encode_json writes its values with the JSON writer).
void append_text_value(std::string& out, const FieldValue& v) {
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>) {
          out += x ? "true" : "false";
        } else if constexpr (std::is_same_v<T, double>) {
          if (!std::isfinite(x)) {
            out += "nan";
          } else {
            out += fmt::format("{}", x);
          }
        } else if constexpr (std::is_same_v<T, std::string>) {
          if (x.empty() || !bare_word(x)) {
            // Quoted, so that key=value splits cleanly and no control character or
            // byte that is not UTF-8 reaches the line raw.
            append_json_string(out, x);
          } else {
            out += x;
          }
        } else {
          out += fmt::format("{}", x);
        }
      },
      v);
}

}  // namespace

std::string encode_json(const Event& e) {
  JsonWriter j;
  j.reserve(128 + 32 * e.fields.size());
  j.begin_object()
      .field("time", format_utc(e.time))
      .field("seq", e.seq)
      .field("id", static_cast<unsigned>(e.type))
      .field("type", event_type_name(e.type))
      .key("fields")
      .begin_object();
  for (const EventField& f : e.fields) {
    j.key(f.key);
    std::visit(
        [&j](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, bool>)
            j.boolean(x);
          else if constexpr (std::is_same_v<T, std::string>)
            j.str(x);
          else
            j.num(x);  // a double that is not finite is null
        },
        f.value);
  }
  j.end_object().end_object();
  return std::move(j).take();
}

std::string encode_text(const Event& e) {
  std::string out = format_utc(e.time);
  out += fmt::format(" {}({})", event_type_name(e.type), static_cast<unsigned>(e.type));
  for (const EventField& f : e.fields) {
    out += ' ';
    out += f.key;
    out += '=';
    append_text_value(out, f.value);
  }
  return out;
}

}  // namespace ibsm::ops
