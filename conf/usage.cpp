#include "conf/usage.hpp"

#include "conf/flags.hpp"
#include "conf/option_value.hpp"

#ifndef IBSM_VERSION
#define IBSM_VERSION "0.0.0"
#endif

namespace ibsm::conf {

std::string version_text() {
  return std::string("ibsm ") + IBSM_VERSION + " (compatible with OpenSM 3.3.23)\n";
}

std::string usage_text() {
  std::string out =
      "Usage: ibsm [options]\n"
      "InfiniBand subnet manager, a drop-in replacement for OpenSM.\n"
      "       ibsm --check-qos-policy FILE [--partitions F] [--port ...] [--match ...]\n"
      "         (prints a QoS policy file as parsed and which rule each --match tuple\n"
      "         takes; docs/qos-policy.md)\n"
      "Long options may also be written with one dash (-once) or abbreviated.\n"
      "Flags marked (not implemented) are refused.\n\n";
  auto line = [&](const FlagDef& f) {
    std::string head = "  ";
    head += f.short_name ? std::string("-") + f.short_name : std::string("  ");
    if (!f.long_name.empty()) {
      head += f.short_name ? ", --" : "  --";
      head += f.long_name;
    }
    if (!f.alias.empty()) {
      head += ", --";
      head += f.alias;
    }
    if (f.takes_arg) head += " " + f.arg_name;
    if (head.size() < 38) {
      head.resize(38, ' ');
    } else {
      head += "\n" + std::string(38, ' ');
    }
    out += head;
    out += f.help;
    if (f.row && f.takes_arg) out += " [" + format_default(*f.row) + "]";
    if (!f.implemented) out += " (not implemented)";
    out += '\n';
  };
  out += "Start-up and logging:\n";
  for (const FlagDef& f : all_flags()) {
    if (f.special != Special::kOption) line(f);
  }
  out += "\nOptions (each also an opensm.conf key, see ibsm(8)):\n";
  for (const FlagDef& f : all_flags()) {
    if (f.special == Special::kOption) line(f);
  }
  out +=
      "\nEnvironment: OSM_CACHE_DIR (default /var/cache/opensm), OSM_TMP_DIR.\n"
      "Files: /etc/opensm/opensm.conf (read first if present).\n";
  return out;
}

}  // namespace ibsm::conf
