// The read-only answers by command: answer_read_only picks the report family (one file
// each in ctl/reports/), and the answers every family shares: errors and help.
#include "ctl/reports/reports.hpp"

#include <spdlog/fmt/fmt.h>

#include "common/json_writer.hpp"
#include "ctl/errors.hpp"
#include "ctl/reports/families.hpp"

namespace ibsm::ctl {

Answer error_answer(const Error& e) {
  Answer a;
  a.ok = false;
  a.error = e.id;
  a.text = format_error_id(e.id) + ": " + e.message + "\n";
  return a;
}

Answer answer_help(const Command& cmd) {
  Answer a;
  JsonWriter j;
  j.begin_object().key("commands").begin_array();
  if (cmd.word.empty()) a.text = "Supported commands and syntax:\n";
  for (const CommandSpec& s : command_specs()) {
    if (!cmd.word.empty() && s.name != cmd.word) continue;
    a.text += cmd.word.empty()
                  ? fmt::format("{}\n", s.syntax)
                  : fmt::format("{}\n   {}{}\n", s.syntax, s.help, s.ibsm_only ? " (ibsm)" : "");
    j.begin_object()
        .field("name", s.name)
        .field("syntax", s.syntax)
        .field("help", s.help)
        .field("ibsm_only", s.ibsm_only)
        .end_object();
  }
  j.end_array().end_object();
  a.json = j.text();
  return a;
}

Answer answer_read_only(const Command& cmd, const ops::OpsSnapshot& s, const ops::EventBus& events,
                        bool sees_secrets) {
  using namespace reports;
  const Snap* f = s.fabric.get();
  const NodeNamer name_of(s.node_names.get());
  switch (cmd.id) {
    case CommandId::kHelp:
      return answer_help(cmd);
    case CommandId::kVersion:
      return simple("ibsm " + s.version + "\n", "version", s.version);
    case CommandId::kStatus:
      return status(s, events);
    case CommandId::kLogLevel: {
      const unsigned v = s.options ? s.options->log_flags : 0;
      Answer a = simple(fmt::format("Current log level is 0x{:x}\n", v), "log_level",
                        fmt::format("0x{:02x}", v));
      return a;
    }
    case CommandId::kPriority:
      return simple(fmt::format("Current sm-priority is {}\n", s.priority), "priority",
                    std::to_string(s.priority));
    case CommandId::kQueryLid:
      return f ? querylid(*f, name_of, static_cast<mad::Lid>(*cmd.number)) : no_fabric();
    case CommandId::kPortStatus:
      return f ? portstatus(*f, name_of, cmd.word) : no_fabric();
    case CommandId::kSwitchBalance:
      return f ? switchbalance(*f, name_of, cmd) : no_fabric();
    case CommandId::kLidBalance:
      return f ? lidbalance(*f, name_of, cmd) : no_fabric();
    case CommandId::kDumpPortGuid:
      return f ? dump_portguid(*f, cmd) : no_fabric();
    case CommandId::kRoutes:
      return f ? routes(s, *f, name_of, cmd) : no_fabric();
    case CommandId::kPartitions:
      return partitions(s, f, name_of);
    case CommandId::kDumpConf:
      return dump_conf(s, sees_secrets);
    case CommandId::kEvents:
      return events_history(events, cmd.number.value_or(20));
    case CommandId::kNodeNames:
      return node_names(s.node_names.get());
    case CommandId::kTopoDiff:
      return topo_diff(s);
    case CommandId::kDegraded:
      return degraded(s);
    case CommandId::kHealth:
      return health(s);
    case CommandId::kTopology:
      return f ? topology(s, *f, cmd) : no_fabric();
    default:
      return fail_answer(kErrUnknownCommand, "command needs the SM's thread");
  }
}

}  // namespace ibsm::ctl
