#include "sm/health/health_types.hpp"

namespace ibsm::sm::health {

NodeKind node_kind(mad::NodeType t) {
  return t == mad::NodeType::kSwitch ? NodeKind::kSwitch : NodeKind::kCa;
}

std::string_view condition_name(Condition c) {
  switch (c) {
    case Condition::kReboot:
      return "reboot";
    case Condition::kUnresponsive:
      return "unresponsive";
    case Condition::kNoisy:
      return "noisy";
    case Condition::kSetErr:
      return "seterr";
    case Condition::kFlapping:
      return "flapping";
    case Condition::kIllegal:
      return "illegal";
    case Condition::kManual:
      return "manual";
    case Condition::kErrorRate:
      return "error_rate";
  }
  return "?";
}

namespace {
constexpr std::array<std::string_view, 5> kActionNames = {"ignore", "report", "isolate",
                                                          "no_discover", "disable"};
}  // namespace

std::string_view action_name(Action a) {
  const auto i = static_cast<std::size_t>(a);
  return i < kActionNames.size() ? kActionNames[i] : "?";
}

std::optional<Action> parse_action(std::string_view word) {
  for (std::size_t i = 0; i < kActionNames.size(); ++i)
    if (kActionNames[i] == word) return static_cast<Action>(i);
  return std::nullopt;
}

std::string_view downgrade_name(Downgrade d) {
  switch (d) {
    case Downgrade::kNone:
      return "";
    case Downgrade::kProtected:
      return "sm_path";
    case Downgrade::kSoleHostLink:
      return "host_only_link";
    case Downgrade::kIsolationCap:
      return "cap";
  }
  return "?";
}

}  // namespace ibsm::sm::health
