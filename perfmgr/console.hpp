// The console's `perfmgr` command (OpenSM's osm_console.c perfmgr_parse), as one
// function from its words to the text it prints, so that ibsm-ctl's command registry
// (or any console) wires it without knowing the PerfMgr.
//
//   perfmgr [enable|disable|clear_counters|dump_counters [mach]|print_counters NODE [PORT]
//            |print_errors [NODE]|set_rm_nodes|clear_rm_nodes|set_query_cpi|clear_query_cpi
//            |dump_redir [NODE]|clear_redir [NODE]|sweep_time [SECONDS]
//            |xmit_wait_threshold [VALUE]]
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "perfmgr/perf_manager.hpp"

namespace ibsm::perfmgr {

struct ConsoleReply {
  bool ok = true;
  std::string text;
  // Set by the reads that format the counter database (print_counters, print_errors,
  // dump_counters), which would otherwise cost the PerfMgr's thread (the SM's) time in
  // proportion to the fabric: it owns an immutable snapshot of what it prints, taken
  // when the command ran (CounterDb copies share nodes copy-on-write: a pointer per
  // node; one node for print_counters NODE), and gives the reply (the text,
  // or the dump file written) when called, on any thread. `text` is then empty.
  std::function<ConsoleReply()> format;
};

// `words` after "perfmgr"; `dump_dir` is where dump_counters writes when
// event_db_dump_file is unset (OpenSM: dump_files_dir). Runs on the PerfMgr's thread.
ConsoleReply perfmgr_command(PerfManager& pm, const std::vector<std::string>& words,
                             const std::string& dump_dir);

// The reply with its formatting done (runs `format` if set): for a caller on one thread.
ConsoleReply finish(ConsoleReply r);

// The status `perfmgr` alone prints.
std::string perfmgr_status(const PerfManager& pm);

}  // namespace ibsm::perfmgr
