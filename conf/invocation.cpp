#include "conf/invocation.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "conf/command_line.hpp"
#include "conf/config_file.hpp"
#include "conf/console_keys.hpp"
#include "conf/errors.hpp"
#include "conf/opensm_conf_writer.hpp"
#include "conf/option_value.hpp"
#include "conf/toml_writer.hpp"
#include "conf/usage.hpp"

namespace ibsm::conf {
namespace {

std::string warnings_text(const std::vector<Warning>& ws) {
  std::string out;
  for (const auto& w : ws)
    out += "ibsm: warning: " + to_string(Error{w.id, w.message}) + "\n";
  return out;
}

Status append(std::vector<Warning>& into, Result<std::vector<Warning>> r) {
  if (!r) return fail(r.error());
  into.insert(into.end(), r->begin(), r->end());
  return {};
}

Result<std::string> refuse(const FlagUse& use, const std::string& what) {
  return fail(kUnimplementedFlag,
              "flag " + use.spelled + ": " + what + " is not implemented by ibsm yet");
}

// Applies one flag that sets an option-table row.
Status apply_option_flag(const FlagUse& use, Options& o) {
  const OptionRow& row = *use.flag->row;
  if (row.impl == Impl::kNo) {
    auto r = refuse(use, "option " + std::string(row.key) + " (" + flag_display(*use.flag) + ")");
    return fail(r.error());
  }
  switch (row.cli.kind) {
    case CliKind::kSet:
      o.*std::get<bool Options::*>(row.field) = true;
      o.given.add(row.key);
      return {};
    case CliKind::kClear:
      o.*std::get<bool Options::*>(row.field) = false;
      o.given.add(row.key);
      return {};
    default:
      break;
  }
  const IntBase base = row.cli.kind == CliKind::kHexArg ? IntBase::kHex : IntBase::kAuto;
  auto r = set_value(row, o, use.value, base);
  if (!r) return fail(kBadValue, "flag " + use.spelled + ": " + r.error().message);
  return {};
}

const OptionRow& log_flags_row() {
  return *find_option("log_flags");
}

// -d N, OpenSM's debug modes (main.c): each sets an option, as there.
Status apply_debug_mode(const FlagUse& use, Options& o, std::vector<Warning>& warnings) {
  const auto mode = parse_c_integer(use.value);
  if (!mode)
    return fail(kBadValue, "flag " + use.spelled + ": \"" + use.value +
                               "\" is not a number (debug modes: 0, 1, 2, 3)");
  const auto set = [&](std::string_view key) {
    const OptionRow& row = *find_option(key);
    o.*std::get<bool Options::*>(row.field) = true;
    o.given.add(row.key);
    return Status{};
  };
  switch (*mode) {
    case 0:
      return set("ignore_other_sm");
    case 1:
      return set("single_thread");
    case 2:
      return set("force_log_flush");
    case 3:
      return set("disable_multicast");
    case 5: {
      auto r = refuse(use, "debug mode 5 (vendor layer debugging)");
      return fail(r.error());
    }
    default:
      warnings.push_back({kDebugModeIgnored, "flag " + use.spelled + " " + use.value +
                                                 ": unknown debug mode ignored, as OpenSM does"});
      return {};
  }
}

Status apply_special(const FlagUse& use, Options& o, std::vector<Warning>& warnings) {
  switch (use.flag->special) {
    case Special::kOnce:
      o.once = true;
      return {};
    case Special::kPidfile:
      o.pidfile = use.value;
      return {};
    case Special::kVerbose:
      o.log_flags = static_cast<std::uint8_t>((o.log_flags << 1) | 1);
      return {};
    case Special::kAllLogFlags:
      o.log_flags = 0xFF;
      o.force_log_flush = true;
      return {};
    case Special::kLogFlags: {
      auto r = set_value(log_flags_row(), o, use.value);
      if (!r) return fail(kBadValue, "flag " + use.spelled + ": " + r.error().message);
      return {};
    }
    case Special::kDebug:
      return apply_debug_mode(use, o, warnings);
    default:
      return {};  // handled before
  }
}

}  // namespace

Environment Environment::from_process() {
  Environment env;
  for (const char* name : {"OSM_CACHE_DIR", "OSM_TMP_DIR"}) {
    if (const char* v = std::getenv(name)) env.vars[name] = v;
  }
  return env;
}

Result<Invocation> parse_invocation(int argc, const char* const* argv, const Environment& env) {
  auto uses = split_command_line(argc, argv);
  if (!uses) return fail(uses.error());

  std::string config_file, create_config, convert;
  bool strict = false;
  for (const FlagUse& use : *uses) {
    switch (use.flag->special) {
      case Special::kHelp:
        return Invocation{ExitNow{0, usage_text(), "", std::nullopt}};
      case Special::kVersion:
        return Invocation{ExitNow{0, version_text(), "", std::nullopt}};
      case Special::kConfig:
        config_file = use.value;
        break;
      case Special::kCreateConfig:
        create_config = use.value;
        break;
      case Special::kStrict:
        strict = true;
        break;
      case Special::kConvert:
        convert = use.value;
        break;
      default:
        break;
    }
  }

  if (!convert.empty()) {
    Options from_file;
    auto ws = load_config_file(convert, from_file, strict);
    if (!ws) return fail(ws.error());
    return Invocation{ExitNow{0, write_toml(from_file), warnings_text(*ws), std::nullopt}};
  }

  Options o;
  o.strict = strict;
  if (auto it = env.vars.find("OSM_CACHE_DIR"); it != env.vars.end()) o.cache_dir = it->second;
  if (auto it = env.vars.find("OSM_TMP_DIR"); it != env.vars.end()) o.tmp_dir = it->second;

  std::vector<Warning> warnings;
  std::vector<std::string> files;
  std::error_code ec;
  if (!env.default_config_file.empty() && env.default_config_file != config_file &&
      std::filesystem::exists(env.default_config_file, ec)) {
    if (auto s = append(warnings, load_config_file(env.default_config_file, o, strict)); !s) {
      return fail(s.error());
    }
    o.config_file = env.default_config_file;
    files.push_back(env.default_config_file);
  }
  if (!config_file.empty()) {
    if (auto s = append(warnings, load_config_file(config_file, o, strict)); !s) {
      return fail(s.error());
    }
    o.config_file = config_file;
    files.push_back(config_file);
  }
  const Options file_values = o;

  for (const FlagUse& use : *uses) {
    const Status s = use.flag->special == Special::kOption ? apply_option_flag(use, o)
                                                           : apply_special(use, o, warnings);
    if (!s) return fail(s.error());
  }

  apply_deprecated_keys(o);
  if (auto s = check_refused_values(o); !s) return fail(s.error());
  if (auto w = unimplemented_options_warning(o)) warnings.push_back(*w);

  if (!create_config.empty()) {
    return Invocation{ExitNow{0, "", warnings_text(warnings),
                              ExitNow::File{create_config, write_opensm_conf(o)}}};
  }
  return Invocation{Run{std::move(o), std::move(warnings), std::move(files), file_values}};
}

int perform(const ExitNow& e) {
  std::cout << e.out << std::flush;
  std::cerr << e.err << std::flush;
  if (e.file) {
    std::ofstream f(e.file->path, std::ios::trunc);
    f << e.file->contents;
    if (!f.flush()) {
      std::cerr << to_string(Error{kFileUnwritable, "cannot write " + e.file->path}) << "\n";
      return 1;
    }
  }
  return e.code;
}

}  // namespace ibsm::conf
