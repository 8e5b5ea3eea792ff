#include "perfmgr/console.hpp"

#include <fmt/format.h>

#include <charconv>
#include <memory>

namespace ibsm::perfmgr {

namespace {

std::optional<std::uint64_t> number(const std::string& s) {
  std::uint64_t v = 0;
  int base = 10;
  std::string_view t = s;
  if (t.starts_with("0x") || t.starts_with("0X")) {
    base = 16;
    t.remove_prefix(2);
  }
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v, base);
  if (ec != std::errc() || p != t.data() + t.size() || t.empty()) return std::nullopt;
  return v;
}

ConsoleReply usage(const std::string& why) {
  return {false, why +
                     "\nUsage: perfmgr [enable|disable|clear_counters|dump_counters [mach]"
                     "|print_counters NODE [PORT]|print_errors [NODE]|set_rm_nodes|clear_rm_nodes"
                     "|set_query_cpi|clear_query_cpi|dump_redir [NODE]|clear_redir [NODE]"
                     "|sweep_time [SECONDS]|xmit_wait_threshold [VALUE]]\n"};
}

}  // namespace

ConsoleReply finish(ConsoleReply r) {
  if (!r.format) return r;
  return r.format();
}

std::string perfmgr_status(const PerfManager& pm) {
  const PerfSettings& s = pm.settings();
  const PerfStats& st = pm.stats();
  return fmt::format(
      "Performance Manager status:\n"
      "state                   : {}\n"
      "sweep state             : {}\n"
      "sweep time              : {}s\n"
      "outstanding queries/max : {}/{}\n"
      "remove missing nodes    : {}\n"
      "query cpi               : {}\n"
      "xmit wait threshold     : {}\n"
      "sweeps                  : {} (last {:.3f} s)\n"
      "MADs sent/received      : {}/{} ({} timeouts, {} retries, {} errors)\n"
      "answers refused         : {} (not matching their query: IBSM-8512)\n",
      s.enabled ? "Enabled" : "Disabled",
      pm.sweep_state() == SweepState::kActive ? "Active" : "Sleeping", s.sweep_time.count(),
      pm.outstanding(), pm.window(), s.rm_nodes ? "TRUE" : "FALSE", s.query_cpi ? "TRUE" : "FALSE",
      s.xmit_wait_threshold, st.sweeps, st.last_sweep.count(), st.sent, st.received, st.timeouts,
      st.retries, st.errors, st.refused);
}

ConsoleReply perfmgr_command(PerfManager& pm, const std::vector<std::string>& words,
                             const std::string& dump_dir) {
  if (words.empty()) return {true, perfmgr_status(pm)};
  const std::string& cmd = words[0];
  const std::string arg1 = words.size() > 1 ? words[1] : std::string();
  const std::string arg2 = words.size() > 2 ? words[2] : std::string();
  if (cmd == "enable" || cmd == "disable") {
    pm.set_enabled(cmd == "enable");
    return {true, ""};
  }
  if (cmd == "clear_counters") {
    pm.clear_counters();
    return {true, ""};
  }
  // The counter reads: a snapshot here (a pointer per node, CounterDb shares its nodes
  // copy-on-write), formatted (and written) wherever `format` is called.
  if (cmd == "dump_counters") {
    if (!arg1.empty() && arg1 != "mach") return usage("dump_counters takes only \"mach\"");
    auto db = std::make_shared<const CounterDb>(pm.db());
    return {true, "", [db, mach = arg1 == "mach", path = pm.dump_path(dump_dir)]() -> ConsoleReply {
              if (auto st = write_counter_dump(*db, mach, path); !st.ok())
                return {false, to_string(st.error()) + "\n", {}};
              return {true, "", {}};
            }};
  }
  if (cmd == "print_counters" || cmd == "print_errors") {
    const bool err_only = cmd == "print_errors";
    if (arg1.empty()) {
      if (!err_only) return usage("print_counters needs a node name or GUID");
      auto db = std::make_shared<const CounterDb>(pm.db());
      return {true, "", [db]() -> ConsoleReply { return {true, db->dump_human(true), {}}; }};
    }
    auto one = std::make_shared<const CounterDb>(pm.db().subset(arg1));
    return {true, "", [one, arg1, arg2, err_only]() -> ConsoleReply {
              return {true, one->print_node(arg1, arg2, err_only), {}};
            }};
  }
  if (cmd == "set_rm_nodes" || cmd == "clear_rm_nodes") {
    pm.set_rm_nodes(cmd == "set_rm_nodes");
    return {true, ""};
  }
  if (cmd == "set_query_cpi" || cmd == "clear_query_cpi") {
    pm.set_query_cpi(cmd == "set_query_cpi");
    return {true, ""};
  }
  if (cmd == "dump_redir") return {true, pm.dump_redirections()};
  if (cmd == "clear_redir") {
    pm.clear_redirections();
    return {true, ""};
  }
  if (cmd == "sweep_time") {
    if (arg1.empty()) return {true, fmt::format("{}\n", pm.settings().sweep_time.count())};
    auto v = number(arg1);
    if (!v || *v < 1 || *v > 65535) return usage("sweep_time takes 1-65535 seconds");
    pm.set_sweep_time(std::chrono::seconds(*v));
    return {true, ""};
  }
  if (cmd == "xmit_wait_threshold") {
    if (arg1.empty()) return {true, fmt::format("{}\n", pm.settings().xmit_wait_threshold)};
    auto v = number(arg1);
    if (!v || *v > UINT32_MAX) return usage("xmit_wait_threshold takes 0-4294967295");
    pm.set_xmit_wait_threshold(static_cast<std::uint32_t>(*v));
    return {true, ""};
  }
  return usage("unknown perfmgr subcommand \"" + cmd + "\"");
}

}  // namespace ibsm::perfmgr
