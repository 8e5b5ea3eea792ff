#include "ctl/sm_request.hpp"

#include <string>

#include <spdlog/fmt/fmt.h>

namespace ibsm::ctl {

std::optional<ops::ControlRequest> control_request_for(const Command& cmd) {
  ops::ControlRequest r;
  switch (cmd.id) {
    case CommandId::kLogLevel:
      r.action = ops::ControlAction::kLogLevel;
      r.arg = std::to_string(*cmd.number);
      break;
    case CommandId::kPriority:
      r.action = ops::ControlAction::kPriority;
      r.arg = std::to_string(*cmd.number);
      break;
    case CommandId::kResweep:
      r.action = cmd.word == "heavy" ? ops::ControlAction::kResweepHeavy
                                     : ops::ControlAction::kResweepLight;
      break;
    case CommandId::kReroute:
      r.action = ops::ControlAction::kReroute;
      break;
    case CommandId::kSweep:
      r.action = cmd.word == "on" ? ops::ControlAction::kSweepOn : ops::ControlAction::kSweepOff;
      break;
    case CommandId::kLogFlush:
      r.action = ops::ControlAction::kLogFlush;
      r.arg = cmd.word;
      break;
    case CommandId::kUpdateDesc:
      r.action = ops::ControlAction::kUpdateDesc;
      break;
    case CommandId::kHandover:
      r.action = ops::ControlAction::kHandover;
      break;
    case CommandId::kNodeNames:
      r.action = ops::ControlAction::kReloadNodeNames;
      break;
    case CommandId::kPermodlog:  // the module loggers are the SM's: shown and set there
      r.action = ops::ControlAction::kPermodlog;
      r.words = cmd.args;
      if (cmd.number) r.arg = std::to_string(*cmd.number);  // the flags, as checked
      break;
    case CommandId::kPerfmgr:  // the PerfMgr lives on the SM's thread, even to read it
      r.action = ops::ControlAction::kPerfmgr;
      r.words = cmd.args;
      break;
    case CommandId::kHealth:  // only `health clear GUID PORT` changes anything
      if (!cmd.changes || !cmd.guid || !cmd.number) return std::nullopt;
      r.action = ops::ControlAction::kHealthClear;
      r.words = {fmt::format("0x{:016x}", *cmd.guid), std::to_string(*cmd.number)};
      break;
    default:
      return std::nullopt;
  }
  r.changes = cmd.changes;
  return r;
}

}  // namespace ibsm::ctl
