#include "conf/opensm_conf_writer.hpp"

#include <algorithm>

#include "conf/opensm_conf_reader.hpp"
#include "conf/option_table.hpp"
#include "conf/option_value.hpp"

namespace ibsm::conf {

namespace {

// The reader trims a value and removes one pair of surrounding quotes (as OpenSM
// does), so a string with a blank at either end, or one that is itself in quotes,
// is written in quotes to read back the same (found by tests/fuzz/fuzz_opensm_conf).
std::string value_text(const OptionRow& row, const Options& o) {
  std::string v = format_value(row, o);
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; };
  const bool blank_edge = !v.empty() && (blank(v.front()) || blank(v.back()));
  const bool in_quotes =
      v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front();
  return blank_edge || in_quotes ? '"' + v + '"' : v;
}

}  // namespace

// Every key is written. OpenSM's keys as "key value"; ibsm's own keys (section
// kIbsm) as "#ibsm: key value" lines: OpenSM cuts every line at its first '#'
// (osm_subn_parse_conf_file), so it reads them as comments, silently, while ibsm
// reads them as keys (opensm_conf_reader.hpp). The file stays a complete record of
// the effective configuration, reads back the same in ibsm, and gives OpenSM no
// "Unrecognized token" (checked with Debian's `opensm -F file -c out`).
std::string write_opensm_conf(const Options& o) {
  std::string out =
      "# opensm.conf written by ibsm. OpenSM reads it as well.\n"
      "# Keys marked [restart] are read only at start-up; the others are re-read on SIGHUP.\n"
      "# Keys marked [not implemented] are accepted but not acted on by ibsm yet.\n";
  for (Section s : kAllSections) {
    out += "\n#\n# ";
    out += section_title(s);
    out += "\n#\n";
    if (is_ibsm_extension(s)) {
      out +=
          "# Keys of ibsm only, with ibsm's defaults, on \"#ibsm: key value\" lines: ibsm\n"
          "# reads them as keys, OpenSM as comments. (Plain \"key value\" lines work in ibsm\n"
          "# too, but OpenSM warns \"Unrecognized token\" about them.)\n";
    }
    for (const OptionRow& row : option_rows()) {
      if (row.section != s) continue;
      out += "\n# ";
      out += row.help;
      if (row.reload == Reload::kRestart) out += " [restart]";
      if (row.impl == Impl::kNo) out += " [not implemented]";
      out += "\n";
      if (row.spec.merge != nullptr) {
        // One line per element, as OpenSM writes its per-SL congestion settings.
        const std::string list = format_value(row, o);
        for (std::size_t at = 0; at <= list.size();) {
          const auto comma = std::min(list.find(',', at), list.size());
          out += std::string(row.key) + ' ' + list.substr(at, comma - at) + '\n';
          at = comma + 1;
        }
        continue;
      }
      if (is_ibsm_extension(row.section)) out += kIbsmKeyMarker;
      out += row.key;
      out += ' ';
      out += value_text(row, o);
      out += '\n';
    }
  }
  return out;
}

}  // namespace ibsm::conf
