#include "ctl/command.hpp"

#include <algorithm>
#include <charconv>
#include <iterator>

#include "common/log_modules.hpp"
#include "ctl/errors.hpp"

namespace ibsm::ctl {

const std::vector<CommandSpec>& command_specs() {
  // OpenSM's console commands first, in its order, then ibsm's own.
  static const std::vector<CommandSpec> specs = {
      {CommandId::kHelp, "help", "help [<command>]", "list the commands, or explain one", false},
      {CommandId::kQuit, "quit", "quit", "close this connection", false},
      {CommandId::kLogLevel, "loglevel", "loglevel [<log-level>]",
       "show or set the log flags (0x01 error, 0x02 info, 0x04 verbose, 0x08 debug, 0x10 funcs, "
       "0x20 frames, 0x40 routing, 0x80 sys)",
       false},
      {CommandId::kPermodlog, "permodlog", "permodlog [reload | <module> <level>]",
       "show the per-module log flags; with a module (ibsm's or OpenSM's name) and log flags, "
       "set that module's; reload re-reads per_module_logging_file",
       false},
      {CommandId::kPriority, "priority", "priority [<sm-priority>]",
       "show or set this SM's priority (0-15); the election follows", false},
      {CommandId::kResweep, "resweep", "resweep [heavy|light]",
       "sweep now: heavy rediscovers the fabric, light polls the switches for changes", false},
      {CommandId::kReroute, "reroute", "reroute",
       "recompute and program the routes from the current fabric model (no rediscovery)", false},
      {CommandId::kSweep, "sweep", "sweep [on|off]",
       "enable or disable sweeping (off: no sweep at all until on, but those asked for)", false},
      {CommandId::kStatus, "status", "status [loop]",
       "SM state, priority, routing, MAD counters and sweeps (loop: again every 5 s)", false},
      {CommandId::kLogFlush, "logflush", "logflush [on|off]",
       "flush the log now and after every line (on), or buffer it (off)", false},
      {CommandId::kQueryLid, "querylid", "querylid <lid>",
       "the port holding a LID: GUID, description, type, ports and their health", false},
      {CommandId::kPortStatus, "portstatus", "portstatus [ca|switch|router]",
       "port counts by state, width and speed, and ports with possible issues", false},
      {CommandId::kSwitchBalance, "switchbalance", "switchbalance [verbose] [<guid>]",
       "end-port LIDs routed through each inter-switch port; unbalanced switches", false},
      {CommandId::kLidBalance, "lidbalance", "lidbalance [<switchguid>]",
       "end ports whose LIDs a switch forwards unevenly over ports or next switches", false},
      {CommandId::kDumpConf, "dump_conf", "dump_conf",
       "the configuration in force now, after reloads, in opensm.conf form", false},
      {CommandId::kUpdateDesc, "update_desc", "update_desc",
       "re-read every node's NodeDescription (a heavy sweep)", false},
      {CommandId::kVersion, "version", "version", "ibsm's version", false},
      {CommandId::kPerfmgr, "perfmgr",
       "perfmgr [enable|disable|clear_counters|dump_counters [mach]|print_counters <node> "
       "[<port>]|print_errors [<node>]|set_rm_nodes|clear_rm_nodes|set_query_cpi"
       "|clear_query_cpi|dump_redir [<node>]|clear_redir [<node>]|sweep_time [<seconds>]"
       "|xmit_wait_threshold [<value>]]",
       "the performance manager: its status, counters and errors; the subcommands that "
       "change it or write a file are root only",
       false},
      {CommandId::kDumpPortGuid, "dump_portguid",
       "dump_portguid [file <filename>] <regexp1> [<regexp2> ...]",
       "port GUIDs of the nodes whose description matches one of the regexps", false},
      {CommandId::kHandover, "handover", "handover",
       "hand mastership to the best standby SM (as SIGUSR2), with its outcome", true},
      {CommandId::kRoutes, "routes", "routes [<dest lid|guid> [<source lid|guid>]]",
       "the route report; with a destination, the path traced hop by hop from the source "
       "(default: this SM's port)",
       true},
      {CommandId::kPartitions, "partitions", "partitions",
       "P_Keys programmed per port and the result of the last partitions.conf reload", true},
      {CommandId::kEvents, "events", "events [--follow] [--last <n>]",
       "the last events (default 20); --follow streams new ones until the connection closes", true},
      {CommandId::kNodeNames, "node_names", "node_names [reload]",
       "the node-name map in force (node_name_map_name); reload re-reads it, as SIGHUP does", true},
      {CommandId::kTopoDiff, "topo_diff", "topo_diff [--json]",
       "the cabling's deviations from topo_config_file, found at the last heavy sweep", true},
      {CommandId::kDegraded, "degraded", "degraded [--json]",
       "links active below the best width or speed both ends support (last heavy sweep)", true},
      {CommandId::kHealth, "health", "health [--json] | health clear <guid> <port>",
       "the ports the health policy judges unhealthy, both ends of each link named; clear "
       "gives one port back its health (root only)",
       true},
      {CommandId::kTopology, "topology",
       "topology [--format slurm|json] [--rail <n> | --ports] [--include <regexp>] "
       "[--exclude <regexp>]",
       "Slurm's topology.conf (topology/tree) from the last heavy sweep: hosts under their "
       "leaf switches, one top; or the same tree as JSON",
       true},
  };
  return specs;
}

const CommandSpec& spec_of(CommandId id) {
  for (const CommandSpec& s : command_specs())
    if (s.id == id) return s;
  return command_specs().front();
}

bool is_blank(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

namespace {

Result<std::uint64_t> parse_number(std::string_view s, std::string_view what) {
  std::uint64_t v = 0;
  int base = 10;
  std::string_view digits = s;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    base = 16;
    digits.remove_prefix(2);
  }
  const auto* end = digits.data() + digits.size();
  auto [p, ec] = std::from_chars(digits.data(), end, v, base);
  if (digits.empty() || ec != std::errc{} || p != end)
    return fail(kErrBadArgument, std::string(what) + " '" + std::string(s) +
                                     "' is not a number (decimal, or hexadecimal with 0x)");
  return v;
}

Unexpected<Error> bad(const CommandSpec& spec, std::string why) {
  return fail(kErrBadArgument, why + "; usage: " + std::string(spec.syntax));
}

Result<Command::Endpoint> parse_endpoint(std::string_view s) {
  auto v = parse_number(s, "LID or GUID");
  if (!v) return fail(v.error());
  // A GUID is written with its 16 hex digits, or does not fit in a LID.
  const bool guid = (s.size() > 6 && s.starts_with("0x")) || *v > 0xFFFF;
  if (!guid && (*v == 0 || *v > 0xBFFF))
    return fail(kErrBadArgument, "LID " + std::string(s) + " is not a unicast LID (1-0xBFFF)");
  if (guid && *v == 0) return fail(kErrBadArgument, "GUID 0 names no port");
  return Command::Endpoint{guid, *v};
}

}  // namespace

Result<std::uint16_t> parse_lid(std::string_view s) {
  auto v = parse_number(s, "LID");
  if (!v) return fail(v.error());
  if (*v == 0 || *v > 0xBFFF)
    return fail(kErrBadArgument, "LID " + std::string(s) + " is not a unicast LID (1-0xBFFF)");
  return static_cast<std::uint16_t>(*v);
}

Result<std::uint64_t> parse_guid(std::string_view s) {
  auto v = parse_number(s, "GUID");
  if (!v) return fail(v.error());
  if (*v == 0) return fail(kErrBadArgument, "GUID 0 names no node");
  return *v;
}

Result<Command> parse_command(std::string_view line) {
  if (line.size() > kMaxLine)
    return fail(kErrLineTooLong, "request line of " + std::to_string(line.size()) +
                                     " bytes; at most " + std::to_string(kMaxLine));
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // telnet sends CRLF
  for (const char ch : line) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\t') || c >= 0x7f)
      return fail(kErrMalformed, "request holds a byte that is not printable ASCII (0x" +
                                     std::string(1, "0123456789abcdef"[c >> 4]) +
                                     std::string(1, "0123456789abcdef"[c & 15]) + ")");
  }
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
      ++i;
    if (i >= line.size()) break;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t')
      ++i;
    if (words.size() == kMaxWords)
      return fail(kErrBadArgument, "more than " + std::to_string(kMaxWords) + " words");
    words.emplace_back(line.substr(start, i - start));
  }
  Command cmd;
  if (!words.empty() && words.front() == "--json") {
    cmd.json = true;
    words.erase(words.begin());
  }
  if (words.empty()) return fail(kErrUnknownCommand, "empty request; try 'help'");
  const CommandSpec* spec = nullptr;
  for (const CommandSpec& s : command_specs())
    if (s.name == words.front()) spec = &s;
  if (spec == nullptr) {
    std::string name = words.front().substr(0, 64);
    return fail(kErrUnknownCommand, "unknown command '" + name + "'; try 'help'");
  }
  cmd.id = spec->id;
  cmd.args.assign(words.begin() + 1, words.end());
  const auto& a = cmd.args;
  auto at_most = [&](std::size_t n) -> std::optional<Unexpected<Error>> {
    if (a.size() > n) return bad(*spec, "too many arguments (" + std::to_string(a.size()) + ")");
    return std::nullopt;
  };
  auto one_of = [&](std::size_t idx, std::initializer_list<std::string_view> words_allowed,
                    bool required) -> std::optional<Unexpected<Error>> {
    if (idx >= a.size()) {
      if (required) return bad(*spec, "missing argument");
      return std::nullopt;
    }
    for (auto w : words_allowed)
      if (a[idx] == w) {
        cmd.word = a[idx];
        return std::nullopt;
      }
    return bad(*spec, "invalid argument '" + a[idx].substr(0, 64) + "'");
  };

  switch (spec->id) {
    case CommandId::kHelp:
      if (auto e = at_most(1)) return *e;
      if (!a.empty()) {
        bool known = false;
        for (const CommandSpec& s : command_specs())
          known = known || s.name == a[0];
        if (!known) return fail(kErrUnknownCommand, "no command '" + a[0].substr(0, 64) + "'");
        cmd.word = a[0];
      }
      break;
    case CommandId::kPermodlog:
      // OpenSM's permodlog only prints per_module_logging_file; ibsm also changes it.
      if (auto e = at_most(2)) return *e;
      if (a.size() == 1 && a[0] != "reload")
        return bad(*spec, "'" + a[0].substr(0, 64) + "' needs a level, or use 'reload'");
      if (a.size() == 2) {
        if (!find_log_module(a[0]))
          return bad(*spec, "no log module '" + a[0].substr(0, 64) + "' (permodlog lists them)");
        auto v = parse_number(a[1], "log level");
        if (!v) return fail(v.error());
        if (*v > 0xFF) return bad(*spec, "log level " + a[1] + " is above 0xFF");
        cmd.word = a[0];
        cmd.number = *v;
      }
      cmd.changes = !a.empty();
      break;
    case CommandId::kQuit:
    case CommandId::kReroute:
    case CommandId::kDumpConf:
    case CommandId::kUpdateDesc:
    case CommandId::kVersion:
    case CommandId::kHandover:
    case CommandId::kPartitions:
      if (auto e = at_most(0)) return *e;
      cmd.changes = spec->id == CommandId::kReroute || spec->id == CommandId::kUpdateDesc ||
                    spec->id == CommandId::kHandover;
      break;
    case CommandId::kLogLevel:
      if (auto e = at_most(1)) return *e;
      if (!a.empty()) {
        auto v = parse_number(a[0], "log level");
        if (!v) return fail(v.error());
        if (*v > 0xFF) return bad(*spec, "log level " + a[0] + " is above 0xFF");
        cmd.number = *v;
        cmd.changes = true;
      }
      break;
    case CommandId::kPriority:
      if (auto e = at_most(1)) return *e;
      if (!a.empty()) {
        auto v = parse_number(a[0], "priority");
        if (!v) return fail(v.error());
        if (*v > 15) return bad(*spec, "priority " + a[0] + " is above 15");
        cmd.number = *v;
        cmd.changes = true;
      }
      break;
    case CommandId::kResweep:
      if (auto e = at_most(1)) return *e;
      if (auto e = one_of(0, {"heavy", "light"}, true)) return *e;
      cmd.changes = true;
      break;
    case CommandId::kSweep:
    case CommandId::kLogFlush:
      if (auto e = at_most(1)) return *e;
      if (auto e = one_of(0, {"on", "off"}, true)) return *e;
      cmd.changes = true;
      break;
    case CommandId::kNodeNames:
      if (auto e = at_most(1)) return *e;
      if (auto e = one_of(0, {"reload"}, false)) return *e;
      cmd.changes = !a.empty();
      break;
    case CommandId::kTopoDiff:
    case CommandId::kDegraded:
      // `ibsm-ctl topo_diff --json` sends the flag after the command.
      if (auto e = at_most(1)) return *e;
      if (!a.empty() && a[0] != "--json")
        return bad(*spec, "invalid argument '" + a[0].substr(0, 64) + "'");
      cmd.json = cmd.json || !a.empty();
      break;
    case CommandId::kHealth: {
      if (a.empty() || a[0] == "--json") {  // the report; --json may follow the command
        if (auto e = at_most(1)) return *e;
        cmd.json = cmd.json || !a.empty();
        break;
      }
      if (a[0] != "clear") return bad(*spec, "invalid argument '" + a[0].substr(0, 64) + "'");
      if (a.size() < 3) return bad(*spec, "health clear needs a node GUID and a port number");
      if (auto e = at_most(3)) return *e;
      auto g = parse_guid(a[1]);
      if (!g) return fail(g.error());
      auto port = parse_number(a[2], "port number");
      if (!port) return fail(port.error());
      if (*port > 254) return bad(*spec, "port " + a[2] + " is above 254");
      cmd.word = a[0];
      cmd.guid = *g;
      cmd.number = *port;
      cmd.changes = true;
      break;
    }
    case CommandId::kStatus:
      if (auto e = at_most(1)) return *e;
      if (auto e = one_of(0, {"loop"}, false)) return *e;
      cmd.flag = !a.empty();
      break;
    case CommandId::kQueryLid: {
      if (a.empty()) return bad(*spec, "no LID specified");
      if (auto e = at_most(1)) return *e;
      auto lid = parse_lid(a[0]);
      if (!lid) return fail(lid.error());
      cmd.number = *lid;
      break;
    }
    case CommandId::kPortStatus:
      if (auto e = at_most(1)) return *e;
      if (auto e = one_of(0, {"ca", "switch", "router"}, false)) return *e;
      break;
    case CommandId::kSwitchBalance: {
      if (auto e = at_most(2)) return *e;
      std::size_t next = 0;
      if (next < a.size() && a[next] == "verbose") {
        cmd.flag = true;
        ++next;
      }
      if (next < a.size()) {
        auto g = parse_guid(a[next]);
        if (!g) return fail(g.error());
        cmd.guid = *g;
        ++next;
      }
      if (next != a.size()) return bad(*spec, "unexpected '" + a[next].substr(0, 64) + "'");
      break;
    }
    case CommandId::kLidBalance:
      if (auto e = at_most(1)) return *e;
      if (!a.empty()) {
        auto g = parse_guid(a[0]);
        if (!g) return fail(g.error());
        cmd.guid = *g;
      }
      break;
    case CommandId::kPerfmgr: {
      // OpenSM's perfmgr_parse subcommands. Those that print are read-only; those
      // that change the PerfMgr (or write a file as ibsm's user) are root only.
      if (auto e = at_most(3)) return *e;
      if (a.empty()) break;  // the status
      const std::string& sub = a[0];
      static constexpr std::string_view kReading[] = {"print_counters", "print_errors",
                                                      "dump_redir"};
      static constexpr std::string_view kChanging[] = {
          "enable",       "disable",        "clear_counters",     "dump_counters",
          "set_rm_nodes", "clear_rm_nodes", "set_query_cpi",      "clear_query_cpi",
          "clear_redir",  "sweep_time",     "xmit_wait_threshold"};
      const bool reads = std::ranges::find(kReading, sub) != std::end(kReading);
      const bool changes = std::ranges::find(kChanging, sub) != std::end(kChanging);
      if (!reads && !changes)
        return bad(*spec, "unknown perfmgr subcommand '" + sub.substr(0, 64) + "'");
      cmd.word = sub;
      // sweep_time and xmit_wait_threshold without a value only show it.
      cmd.changes =
          changes && !((sub == "sweep_time" || sub == "xmit_wait_threshold") && a.size() == 1);
      break;
    }
    case CommandId::kDumpPortGuid: {
      std::size_t next = 0;
      if (next < a.size() && a[next] == "file") {
        if (next + 1 >= a.size()) return bad(*spec, "no file name after 'file'");
        cmd.file = a[next + 1];
        cmd.changes = true;  // writes a file as the SM's user
        next += 2;
      }
      cmd.patterns.assign(a.begin() + static_cast<std::ptrdiff_t>(next), a.end());
      if (cmd.patterns.empty()) return bad(*spec, "no regular expression given");
      break;
    }
    case CommandId::kRoutes:
      if (auto e = at_most(2)) return *e;
      if (!a.empty()) {
        auto d = parse_endpoint(a[0]);
        if (!d) return fail(d.error());
        cmd.dest = *d;
      }
      if (a.size() > 1) {
        auto s = parse_endpoint(a[1]);
        if (!s) return fail(s.error());
        cmd.source = *s;
      }
      break;
    case CommandId::kTopology: {
      bool rail = false;
      for (std::size_t k = 0; k < a.size(); ++k) {
        const std::string& w = a[k];
        const bool has_value = k + 1 < a.size();
        if (w == "--ports" || w == "--json") {  // `ibsm-ctl topology --json`, as topo_diff
          (w == "--ports" ? cmd.topology.all_ports : cmd.json) = true;
          continue;
        }
        if (w != "--format" && w != "--rail" && w != "--include" && w != "--exclude")
          return bad(*spec, "unexpected '" + w.substr(0, 64) + "'");
        if (!has_value) return bad(*spec, w + " needs a value");
        const std::string& v = a[++k];
        if (w == "--format") {
          if (v != "slurm" && v != "json")
            return bad(*spec, "format '" + v.substr(0, 64) + "' is neither slurm nor json");
          cmd.topology.json_format = v == "json";
        } else if (w == "--rail") {
          auto n = parse_number(v, "rail");
          if (!n) return fail(n.error());
          if (*n > 255) return bad(*spec, "rail " + v + " is above 255");
          cmd.topology.rail = static_cast<unsigned>(*n);
          rail = true;
        } else {
          (w == "--include" ? cmd.topology.include : cmd.topology.exclude).push_back(v);
        }
      }
      if (rail && cmd.topology.all_ports) return bad(*spec, "give --rail or --ports, not both");
      break;
    }
    case CommandId::kEvents:
      for (std::size_t k = 0; k < a.size(); ++k) {
        if (a[k] == "--follow" || a[k] == "-f") {
          cmd.flag = true;
        } else if (a[k] == "--last" && k + 1 < a.size()) {
          auto v = parse_number(a[k + 1], "event count");
          if (!v) return fail(v.error());
          cmd.number = *v;
          ++k;
        } else {
          return bad(*spec, "unexpected '" + a[k].substr(0, 64) + "'");
        }
      }
      break;
  }
  return cmd;
}

}  // namespace ibsm::ctl
