// `ibsm-ctl perfmgr ...` and `ibsm-ctl permodlog ...` (sm/control/subsystem_requests.hpp).
#include "sm/control/subsystem_requests.hpp"

#include <spdlog/fmt/fmt.h>

#include "common/log_modules.hpp"
#include "conf/per_module_logging.hpp"
#include "ops/errors.hpp"
#include "perfmgr/console.hpp"

namespace ibsm::sm::control {

void carry_out_perfmgr(perfmgr::PerfManager& pm, const std::string& dump_dir,
                       ops::ControlRequest& req, const std::function<void()>& changed) {
  const std::string sub = req.words.empty() ? std::string() : req.words.front();
  // What reads the counters needs a running PerfMgr; the status, enable and the
  // settings work either way (OpenSM's console lets `perfmgr enable` start it).
  const bool needs_counters = sub == "print_counters" || sub == "print_errors" ||
                              sub == "dump_counters" || sub == "dump_redir";
  if (needs_counters && !pm.settings().enabled)
    return req.reply(
        {false, ops::kErrNotAvailable.code,
         "PerfMgr is off (perfmgr FALSE, or 'perfmgr disable'): no counters are collected; "
         "'perfmgr enable' starts it"});
  perfmgr::ConsoleReply r = perfmgr_command(pm, req.words, dump_dir);
  auto to_control = [words = req.words](perfmgr::ConsoleReply c) {
    std::string text = std::move(c.text);
    while (!text.empty() && text.back() == '\n')
      text.pop_back();
    if (!c.ok) return ops::ControlReply{false, ops::kErrPerfmgr.code, std::move(text)};
    if (text.empty()) {
      text = "perfmgr";
      for (const std::string& w : words)
        text += " " + w;
      text += ": done";
    }
    return ops::ControlReply{true, 0, std::move(text)};
  };
  if (req.changes && changed) changed();
  if (r.format) {  // counters: this thread only copied them; the control thread formats
    ops::ControlReply later;
    later.finish = [format = std::move(r.format), to_control] { return to_control(format()); };
    return req.reply(std::move(later));
  }
  req.reply(to_control(std::move(r)));
}

void carry_out_permodlog(const Logger& log, const std::string& file, std::uint8_t log_flags,
                         ops::ControlRequest& req) {
  if (req.words.empty()) {
    std::string text =
        fmt::format("Per module logging file: {}\n", file.empty() ? std::string("(none)") : file);
    text += "module      flags  (a module logs at log_flags 0x";
    text += fmt::format("{:02x} OR its flags)\n", log_flags);
    text += conf::format_per_module_logging(log);
    text.pop_back();
    return req.reply({true, 0, std::move(text)});
  }
  if (req.words.size() == 1) {  // reload: the file replaces every runtime change
    auto levels = conf::reload_per_module_logging(log, file);
    if (!levels) return req.reply({false, levels.error().id.code, to_string(levels.error())});
    std::string text =
        fmt::format("per-module log flags re-read from {}", file.empty() ? "(none)" : file);
    for (const auto& w : levels->warnings) {
      log->warn("{}: {}", format_error_id(w.id), w.message);
      text += fmt::format("\n{}: {}", format_error_id(w.id), w.message);
    }
    return req.reply({true, 0, std::move(text)});
  }
  const auto module = find_log_module(req.words[0]);  // the parser checked both words
  const unsigned flags = static_cast<unsigned>(std::stoul(req.arg));  // decimal, 0-0xFF
  if (!module || !set_module_log_flags(log, *module, flags))
    return req.reply({false, ops::kErrNotAvailable.code,
                      "per-module logging is not available: this ibsm logs through one logger"});
  const std::string_view name = log_module_info(*module).name;
  log->info("permodlog: module {} log flags set to 0x{:02x}", name, flags);
  req.reply({true, 0, fmt::format("Setting {} log flags to 0x{:02x}", name, flags)});
}

}  // namespace ibsm::sm::control
