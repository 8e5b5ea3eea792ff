#include "conf/command_line.hpp"

// Boost's typed_value<std::string>::notify trips GCC's -Wnull-dereference
// after inlining; the warning is in Boost, not here.
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <boost/program_options.hpp>
#include <map>

#include "conf/errors.hpp"

namespace po = boost::program_options;

namespace ibsm::conf {
namespace {

// Boost key of a flag: its long name, or "-X" for short-only flags.
std::string boost_key(const FlagDef& f) {
  if (!f.long_name.empty()) return std::string(f.long_name);
  return std::string("-") + f.short_name;
}

std::vector<std::string> long_names() {
  std::vector<std::string> names;
  for (const FlagDef& f : all_flags()) {
    if (!f.long_name.empty()) names.emplace_back(f.long_name);
    if (!f.alias.empty()) names.emplace_back(f.alias);
  }
  return names;
}

// Rewrites getopt_long_only spellings Boost does not take: unambiguous
// prefixes of long names, and "-?".
Result<std::vector<std::string>> normalise(int argc, const char* const* argv) {
  static const std::vector<std::string> names = long_names();
  std::vector<std::string> out;
  bool options_done = false;
  for (int i = 1; i < argc; ++i) {
    std::string tok = argv[i];
    if (options_done || tok.size() < 2 || tok[0] != '-') {
      out.push_back(tok);
      continue;
    }
    if (tok == "--") {
      options_done = true;
      out.push_back(tok);
      continue;
    }
    if (tok == "-?") {
      out.emplace_back("--help");
      continue;
    }
    const bool double_dash = tok[1] == '-';
    if (!double_dash && tok.size() == 2) {  // "-x": a short option, as getopt_long_only does
      out.push_back(tok);
      continue;
    }
    const std::string body = tok.substr(double_dash ? 2 : 1);
    const std::string name = body.substr(0, body.find('='));
    const std::string rest = body.substr(name.size());
    std::vector<std::string> matches;
    for (const auto& n : names) {
      if (n == name) {
        matches = {n};
        break;
      }
      if (n.starts_with(name)) matches.push_back(n);
    }
    if (matches.size() == 1) {
      out.push_back("--" + matches[0] + rest);
    } else if (matches.size() > 1) {
      std::string list;
      for (const auto& m : matches)
        list += " --" + m;
      return fail(kBadCommandLine, "option " + tok + " is ambiguous; it could be:" + list);
    } else {
      out.push_back(tok);  // short option with attached value ("-s10") or cluster ("-vvv")
    }
  }
  return out;
}

}  // namespace

Result<std::vector<FlagUse>> split_command_line(int argc, const char* const* argv) {
  auto args = normalise(argc, argv);
  if (!args) return fail(args.error());

  po::options_description desc;
  std::map<std::string, const FlagDef*> by_key;
  for (const FlagDef& f : all_flags()) {
    std::string names = std::string(f.long_name);
    if (f.short_name) names += std::string(",") + f.short_name;
    if (f.takes_arg) {
      desc.add_options()(names.c_str(), po::value<std::string>());
    } else {
      desc.add_options()(names.c_str(), "");
    }
    by_key[boost_key(f)] = &f;
    if (!f.alias.empty()) {
      if (f.takes_arg) {
        desc.add_options()(std::string(f.alias).c_str(), po::value<std::string>());
      } else {
        desc.add_options()(std::string(f.alias).c_str(), "");
      }
      by_key[std::string(f.alias)] = &f;
    }
  }

  const int style =
      po::command_line_style::allow_short | po::command_line_style::allow_long |
      po::command_line_style::allow_dash_for_short | po::command_line_style::short_allow_adjacent |
      po::command_line_style::short_allow_next | po::command_line_style::long_allow_adjacent |
      po::command_line_style::long_allow_next | po::command_line_style::allow_sticky;

  po::parsed_options parsed(&desc);
  try {
    parsed = po::command_line_parser(*args).options(desc).style(style).run();
  } catch (const po::error& e) {
    return fail(kBadCommandLine, e.what());
  }

  std::vector<FlagUse> uses;
  for (const po::option& opt : parsed.options) {
    if (opt.position_key != -1 || opt.unregistered) {
      const std::string what = opt.original_tokens.empty() ? "?" : opt.original_tokens.front();
      return fail(kBadCommandLine, "unexpected argument '" + what + "'");
    }
    auto it = by_key.find(opt.string_key);
    if (it == by_key.end()) return fail(kBadCommandLine, "unknown option " + opt.string_key);
    FlagUse use{it->second, opt.value.empty() ? std::string() : opt.value.front(),
                opt.original_tokens.empty() ? opt.string_key : opt.original_tokens.front()};
    uses.push_back(std::move(use));
  }
  return uses;
}

}  // namespace ibsm::conf
