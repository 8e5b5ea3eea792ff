#include "conf/opensm_conf_writer.hpp"

#include "conf/option_table.hpp"
#include "conf/option_value.hpp"

namespace ibsm::conf {

std::string write_opensm_conf(const Options& o) {
  std::string out =
      "# opensm.conf written by ibsm. OpenSM reads it as well.\n"
      "# Keys marked [restart] are read only at start-up; the others are re-read on SIGHUP.\n"
      "# Keys marked [not implemented] are accepted but not acted on by ibsm yet.\n";
  for (Section s : kAllSections) {
    out += "\n#\n# ";
    out += section_title(s);
    out += "\n#\n";
    for (const OptionRow& row : option_rows()) {
      if (row.section != s) continue;
      out += "\n# ";
      out += row.help;
      if (row.reload == Reload::kRestart) out += " [restart]";
      if (row.impl == Impl::kNo) out += " [not implemented]";
      out += "\n";
      out += row.key;
      out += ' ';
      out += format_value(row, o);
      out += '\n';
    }
  }
  return out;
}

}  // namespace ibsm::conf
