#include "conf/opensm_conf_writer.hpp"

#include <algorithm>

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

// Every key is written, the ibsm extension keys too, whatever their value, in
// their own section at the end: OpenSM 3.3.23 reads such a file, logging
// "Unrecognized token" for each extension key and ignoring it (checked with
// `opensm -F file -c out`, exit status 0), so writing them keeps the file a
// complete record of the effective configuration at no cost to OpenSM.
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
          "# Keys of ibsm only, with ibsm's defaults. OpenSM logs \"Unrecognized token\"\n"
          "# for each of them and reads on; its own -c dump leaves them out.\n";
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
      out += row.key;
      out += ' ';
      out += value_text(row, o);
      out += '\n';
    }
  }
  return out;
}

}  // namespace ibsm::conf
