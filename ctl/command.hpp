// The control protocol's commands: OpenSM 3.3.23's console commands with their
// names, arguments and meaning, and ibsm's own (handover, routes, partitions,
// events, node_names, topo_diff, degraded, health, topology). parse_command() turns one
// request line into a checked command or one error with a stable ID; it never throws and
// knows nothing of sockets or the SM.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "common/result.hpp"

namespace ibsm::ctl {

enum class CommandId : std::uint8_t {
  kHelp,
  kQuit,
  kLogLevel,
  kPermodlog,
  kPriority,
  kResweep,
  kReroute,
  kSweep,
  kStatus,
  kLogFlush,
  kQueryLid,
  kPortStatus,
  kSwitchBalance,
  kLidBalance,
  kDumpConf,
  kUpdateDesc,
  kVersion,
  kPerfmgr,
  kDumpPortGuid,
  kHandover,
  kRoutes,
  kPartitions,
  kEvents,
  kNodeNames,
  kTopoDiff,
  kDegraded,
  kHealth,
  kTopology,
};

struct CommandSpec {
  CommandId id;
  std::string_view name;
  std::string_view syntax;  // "resweep [heavy|light]"
  std::string_view help;    // one line
  bool ibsm_only;           // not an OpenSM console command
};
const std::vector<CommandSpec>& command_specs();
const CommandSpec& spec_of(CommandId id);

// A checked command. Arguments are kept as typed; the checked values are below.
struct Command {
  CommandId id = CommandId::kHelp;
  std::vector<std::string> args;
  bool json = false;     // the line began with --json
  bool changes = false;  // changes the SM or the fabric: root only
  // Checked values, filled where the command has them.
  std::optional<std::uint64_t> number;  // loglevel, priority, querylid LID, events --last N,
                                        // health clear's port
  std::optional<std::uint64_t> guid;    // switchbalance, lidbalance, health clear's node
  std::string word;   // resweep heavy|light, sweep on|off, portstatus type, health clear...
  bool flag = false;  // switchbalance verbose, status loop, events --follow
  std::string file;   // dump_portguid file NAME
  std::vector<std::string> patterns;  // dump_portguid regexps
  // routes: destination and optional source (a LID or a GUID, as typed).
  struct Endpoint {
    bool is_guid = false;
    std::uint64_t value = 0;
  };
  std::optional<Endpoint> dest, source;
  // topology: what to print and which hosts (slurm/topology.hpp).
  struct TopologyArgs {
    bool json_format = false;                   // --format json (else slurm: topology.conf)
    bool all_ports = false;                     // --ports
    unsigned rail = 0;                          // --rail N
    std::vector<std::string> include, exclude;  // --include RE, --exclude RE (repeatable)
  };
  TopologyArgs topology;
};

inline constexpr std::size_t kMaxLine = 4096;  // bytes, without the newline
inline constexpr std::size_t kMaxWords = 64;

// One request line (without its newline). Blank lines are the caller's to skip
// (is_blank); parse_command answers them with kErrUnknownCommand.
Result<Command> parse_command(std::string_view line);
bool is_blank(std::string_view line);

// "0x1a2", "418": a LID (1-0xBFFF, unicast).
Result<std::uint16_t> parse_lid(std::string_view s);
// "0x0002c903000e0b72" or decimal: a GUID (non-zero).
Result<std::uint64_t> parse_guid(std::string_view s);

}  // namespace ibsm::ctl
