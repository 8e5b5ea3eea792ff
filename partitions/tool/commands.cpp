#include "partitions/tool/commands.hpp"

#include <algorithm>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>

#include "common/atomic_file.hpp"
#include "common/unified_diff.hpp"
#include "partitions/defaults.hpp"
#include "partitions/errors.hpp"
#include "partitions/fabric_snapshot.hpp"
#include "partitions/formatter.hpp"
#include "partitions/parser.hpp"
#include "partitions/resolve.hpp"
#include "partitions/syntax.hpp"
#include "partitions/tool/editor.hpp"
#include "partitions/tool/plan_report.hpp"
#include "partitions/tool/show.hpp"

namespace ibsm::partitions {
namespace {

constexpr const char* kUsage =
    "usage: ibsm-part [options] <command> [arguments]\n"
    "commands:\n"
    "  check                          report errors and warnings (file:line:column)\n"
    "  list                           partitions, P_Keys, member counts, flags\n"
    "  show <name|pkey>               one partition with its members and groups\n"
    "  add <definition> [members]     e.g. add 'Storage=0x0010, ipoib, mtu=4096' 'ALL=full'\n"
    "  remove <name|pkey>             remove every statement of the partition\n"
    "  add-member <name|pkey> <member>...     e.g. 0x0002c903000a1b2c=full\n"
    "  remove-member <name|pkey> <member>...\n"
    "  set <name|pkey> <flag[=value]>... [--unset <flag>]...\n"
    "  fmt                            rewrite the file in canonical layout\n"
    "  plan --fabric <snapshot>       what the SM would change on the fabric\n"
    "options:\n"
    "  -f, --file <path>              partitions file (default /etc/opensm/partitions.conf)\n"
    "  -n, --dry-run                  print a unified diff instead of writing\n"
    "  --backup-suffix <s>            backup name suffix (default .bak)\n"
    "  --no-backup                    do not keep a backup\n"
    "  --fabric <path>                fabric snapshot written by the SM (plan)\n"
    "  --allow-both-pkeys, --part-enforce <both|in|out|off>, --qos   as in opensm.conf\n"
    "  -h, --help\n";

struct Options {
  std::string file = kDefaultPartitionsFile;
  bool dry_run = false;
  std::string backup_suffix = ".bak";
  std::string fabric;
  std::vector<std::string> unsets;
  PlannerOptions planner;
  ResolveOptions resolve;
  std::vector<std::string> positional;
};

bool read_file(const std::string& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  text = ss.str();
  return true;
}

void print(std::ostream& os, const std::vector<Diagnostic>& diags, const std::string& file) {
  for (const Diagnostic& d : diags)
    os << format_diagnostic(d, file) << "\n";
}

int write_or_diff(const Options& o, const std::string& before, const std::string& after,
                  std::ostream& out, std::ostream& err, const std::string& what) {
  if (o.dry_run) {
    out << text::unified_diff(before, after, o.file, o.file + " (" + what + ")");
    return 0;
  }
  if (before == after) {
    out << o.file << ": unchanged\n";
    return 0;
  }
  // The operator's mode of the file is kept, and so is the old version when asked.
  Status s = write_file_atomically(
      o.file, after, AtomicWriteOptions{.keep_mode = true, .backup_suffix = o.backup_suffix});
  if (!s.ok()) {
    err << "ibsm-part: " << to_string(Error{kWriteFailed, s.error().message}) << "\n";
    return 1;
  }
  out << o.file << ": " << what
      << (o.backup_suffix.empty() ? "" : " (previous version in " + o.file + o.backup_suffix + ")")
      << "\n";
  return 0;
}

int edit(const Options& o, std::ostream& out, std::ostream& err, const std::string& what,
         const std::function<EditResult(const std::string&)>& fn) {
  std::string text;
  if (!read_file(o.file, text)) {
    if (what.rfind("add ", 0) != 0) {
      err << "ibsm-part: cannot read " << o.file << "\n";
      return 1;
    }
    text.clear();
  }
  EditResult r = fn(text);
  if (!r.ok()) {
    err << format_diagnostic(r.error(), o.file) << "\n";
    return 1;
  }
  return write_or_diff(o, text, *r, out, err, what);
}

}  // namespace

int run_ibsm_part(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  Options o;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string& into) {
      if (i + 1 >= args.size()) return false;
      into = args[++i];
      return true;
    };
    bool ok = true;
    if (a == "-h" || a == "--help") {
      out << kUsage;
      return 0;
    } else if (a == "-f" || a == "--file") {
      ok = value(o.file);
    } else if (a == "-n" || a == "--dry-run") {
      o.dry_run = true;
    } else if (a == "--backup-suffix") {
      ok = value(o.backup_suffix);
    } else if (a == "--no-backup") {
      o.backup_suffix.clear();
    } else if (a == "--fabric") {
      ok = value(o.fabric);
    } else if (a == "--unset") {
      std::string f;
      ok = value(f);
      o.unsets.push_back(f);
    } else if (a == "--allow-both-pkeys") {
      o.planner.allow_both_pkeys = true;
    } else if (a == "--qos") {
      o.resolve.qos = true;
    } else if (a == "--part-enforce") {
      std::string m;
      ok = value(m);
      if (m == "both")
        o.planner.part_enforce = PartEnforce::kBoth;
      else if (m == "in")
        o.planner.part_enforce = PartEnforce::kIn;
      else if (m == "out")
        o.planner.part_enforce = PartEnforce::kOut;
      else if (m == "off")
        o.planner.part_enforce = PartEnforce::kOff;
      else
        ok = false;
    } else if (a.size() > 1 && a[0] == '-' && a != "-") {
      err << "ibsm-part: unknown option " << a << "\n" << kUsage;
      return 2;
    } else {
      o.positional.push_back(a);
    }
    if (!ok) {
      err << "ibsm-part: option " << a << " needs a valid value\n";
      return 2;
    }
  }
  if (o.positional.empty()) {
    err << kUsage;
    return 2;
  }
  const std::string cmd = o.positional[0];
  static const char* const kCommands[] = {"check",      "list",          "show", "add", "remove",
                                          "add-member", "remove-member", "set",  "fmt", "plan"};
  if (std::find(std::begin(kCommands), std::end(kCommands), cmd) == std::end(kCommands)) {
    err << "ibsm-part: unknown command '" << cmd << "'\n" << kUsage;
    return 2;
  }
  const std::vector<std::string> rest(o.positional.begin() + 1, o.positional.end());
  auto need = [&](std::size_t n) {
    if (rest.size() >= n) return true;
    err << "ibsm-part: " << cmd << " needs more arguments\n" << kUsage;
    return false;
  };

  if (cmd == "add") {
    if (!need(1)) return 2;
    const std::string members = rest.size() > 1 ? rest[1] : "";
    return edit(o, out, err, "add " + rest[0],
                [&](const std::string& t) { return add_partition(t, rest[0], members); });
  }
  if (cmd == "remove") {
    if (!need(1)) return 2;
    return edit(o, out, err, "remove " + rest[0],
                [&](const std::string& t) { return remove_partition(t, rest[0]); });
  }
  if (cmd == "add-member" || cmd == "remove-member") {
    if (!need(2)) return 2;
    const std::vector<std::string> members(rest.begin() + 1, rest.end());
    return edit(o, out, err, cmd + " " + rest[0], [&](const std::string& t) {
      return cmd == "add-member" ? add_members(t, rest[0], members)
                                 : remove_members(t, rest[0], members);
    });
  }
  if (cmd == "set") {
    if (!need(1) || (rest.size() < 2 && o.unsets.empty())) {
      err << "ibsm-part: set needs flags\n";
      return 2;
    }
    const std::vector<std::string> sets(rest.begin() + 1, rest.end());
    return edit(o, out, err, "set " + rest[0],
                [&](const std::string& t) { return set_flags(t, rest[0], sets, o.unsets); });
  }

  std::string text;
  const bool exists = read_file(o.file, text);
  if (!exists && cmd != "check" && cmd != "list" && cmd != "show" && cmd != "plan") {
    err << "ibsm-part: cannot read " << o.file << "\n";
    return 1;
  }
  const SyntaxTree tree = parse_syntax(text);
  ParseResult parsed = analyze(tree);
  if (cmd == "check") {
    if (!exists) {
      out << o.file << ": no such file; OpenSM and ibsm use Default=0x7fff, ipoib: ALL=full\n";
      return 0;
    }
    print(out, parsed.diagnostics, o.file);
    const ResolvedConfig r = resolve(parsed.config, o.resolve);
    if (parsed.ok()) print(out, r.diagnostics, o.file);
    const bool ok = parsed.ok() && !has_errors(r.diagnostics);
    out << o.file << ": " << (ok ? "ok" : "in error") << ", " << parsed.config.statements.size()
        << " statement(s), " << r.partitions.size() << " partition(s), " << r.groups.size()
        << " multicast group(s)\n";
    return ok ? 0 : 1;
  }
  if (!parsed.ok()) {
    print(err, parsed.diagnostics, o.file);
    return 1;
  }
  Config config = parsed.config;
  if (!exists || config.statements.empty()) config = missing_file_config();
  const ResolvedConfig resolved = resolve(config, o.resolve);
  if (cmd == "list") {
    out << list_partitions(config, resolved);
    return 0;
  }
  if (cmd == "show") {
    if (!need(1)) return 2;
    const std::string s = show_partition(config, resolved, rest[0]);
    if (s.empty()) {
      err << "ibsm-part: no partition '" << rest[0] << "'\n";
      return 1;
    }
    out << s;
    return 0;
  }
  if (cmd == "fmt") {
    return write_or_diff(o, text, format_file(tree), out, err, "formatted");
  }
  if (cmd == "plan") {
    if (o.fabric.empty()) {
      err << "ibsm-part: plan needs --fabric <snapshot>\n";
      return 2;
    }
    std::string snap;
    if (!read_file(o.fabric, snap)) {
      err << "ibsm-part: cannot read " << o.fabric << "\n";
      return 1;
    }
    auto s = read_fabric_snapshot(snap);
    if (!s.ok()) {
      err << format_diagnostic(s.error(), o.fabric) << "\n";
      return 1;
    }
    out << plan_report(resolved, *s, o.planner).text;
    return 0;
  }
  err << "ibsm-part: unknown command '" << cmd << "'\n" << kUsage;
  return 2;
}

}  // namespace ibsm::partitions
