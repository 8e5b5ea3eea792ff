#include "conf/flags.hpp"

#include "conf/option_value.hpp"

namespace ibsm::conf {
namespace {

std::string arg_name_for(const OptionRow& row) {
  switch (row.spec.fmt) {
    case Fmt::kDec:
    case Fmt::kHex:
      if (row.cli.kind == CliKind::kHexArg) return "<hex>";
      return row.spec.ranged ? "<" + allowed_values(row) + ">" : "<n>";
    case Fmt::kChoice: {
      std::string out = "<";
      for (auto c : row.spec.choices) {
        if (c.empty()) continue;
        if (out.size() > 1) out += '|';
        out += c;
      }
      return out + ">";
    }
    default:
      return "<" + std::string(row.key) + ">";
  }
}

std::vector<FlagDef> build() {
  std::vector<FlagDef> flags;
  for (const OptionRow& row : option_rows()) {
    if (row.cli.kind == CliKind::kNone) continue;
    FlagDef f;
    f.short_name = row.cli.short_name;
    f.long_name = row.cli.long_name;
    f.alias = row.cli.alias;
    f.takes_arg = row.cli.kind == CliKind::kArg || row.cli.kind == CliKind::kHexArg;
    if (f.takes_arg) f.arg_name = arg_name_for(row);
    f.help = row.help;
    f.implemented = row.impl == Impl::kYes;
    f.row = &row;
    flags.push_back(f);
  }
  auto add = [&](Special s, char sn, std::string_view ln, const char* arg, std::string_view help,
                 bool implemented = true) {
    FlagDef f;
    f.special = s;
    f.short_name = sn;
    f.long_name = ln;
    f.takes_arg = arg != nullptr;
    if (arg) f.arg_name = arg;
    f.help = help;
    f.implemented = implemented;
    flags.push_back(f);
  };
  add(Special::kConfig, 'F', "config", "<file>",
      "Read this opensm.conf (or ibsm.toml, by extension) after /etc/opensm/opensm.conf");
  add(Special::kCreateConfig, 'c', "create-config", "<file>",
      "Write the effective configuration in opensm.conf form to <file> and exit");
  add(Special::kOnce, 'o', "once", nullptr, "Configure the subnet once, then exit");
  add(Special::kPidfile, 'J', "pidfile", "<file>",
      "Write the process ID to <file> (removed on exit); a file that cannot be written stops "
      "ibsm");
  add(Special::kVerbose, 'v', "verbose", nullptr,
      "Add the next log flag (repeatable: -v 0x07, -vv 0x0f, ...)");
  add(Special::kAllLogFlags, 'V', "V", nullptr, "All log flags (0xFF) and flush after each line");
  add(Special::kLogFlags, 'D', "D", "<flags>", "Set log_flags (0x01 error ... 0x80 sys)");
  add(Special::kDebug, 'd', "debug", "<n>",
      "Debug mode, as OpenSM: 0 = ignore other SMs (ignore_other_sm), 1 = single thread "
      "(single_thread: ibsm already serves SMPs and the SA on one event loop, so nothing "
      "changes), 2 = flush the log after each line (force_log_flush), 3 = no multicast "
      "(disable_multicast); other numbers are ignored with a warning, 5 is refused");
  add(Special::kHelp, 'h', "help", nullptr, "Show this help and exit");
  add(Special::kVersion, 0, "version", nullptr, "Show the version and exit");
  add(Special::kStrict, 0, "strict", nullptr, "Unknown opensm.conf keys are errors (ibsm)");
  add(Special::kConvert, 0, "convert", "<file>",
      "Print opensm.conf <file> as ibsm.toml and exit (ibsm)");
  return flags;
}

}  // namespace

const std::vector<FlagDef>& all_flags() {
  static const std::vector<FlagDef> flags = build();
  return flags;
}

std::string flag_display(const FlagDef& f) {
  std::string out;
  if (f.short_name) out = std::string("-") + f.short_name;
  if (!f.long_name.empty()) {
    if (!out.empty()) out += '/';
    out += "--";
    out += f.long_name;
  }
  return out;
}

}  // namespace ibsm::conf
