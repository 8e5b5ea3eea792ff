#include "conf/per_module_logging.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "conf/errors.hpp"
#include "conf/option_value.hpp"

namespace ibsm::conf {
namespace {

constexpr std::string_view kBlank = " \t\r\v\f";

}  // namespace

Result<PerModuleLogging> parse_per_module_logging(std::string_view text, std::string_view file) {
  PerModuleLogging out;
  out.source = std::string(file);
  std::size_t line_no = 0;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++line_no;
    const auto where = fmt::format("{}:{}", file, line_no);
    // The module name ends at a blank, '=' or ',' (OpenSM's delimiters).
    auto b = line.find_first_not_of(" \t\r\v\f=,");
    if (b == std::string_view::npos || line[b] == '#') continue;
    line.remove_prefix(b);
    const auto e = line.find_first_of(" \t\r\v\f=,");
    const std::string_view name = line.substr(0, e);
    std::string_view rest = e == std::string_view::npos ? std::string_view{} : line.substr(e);
    const auto lb = rest.find_first_not_of(" \t\r\v\f=,");
    rest = lb == std::string_view::npos ? std::string_view{} : rest.substr(lb);
    const auto le = rest.find_first_of(kBlank);
    const std::string_view level_text = rest.substr(0, le);
    if (level_text.empty() || level_text[0] == '#')
      return fail(kPerModuleLogSyntax,
                  fmt::format("{}: module {} has no log level; per-module logging file not used",
                              where, name));
    const auto level = parse_c_integer(level_text);
    if (!level || *level > 0xff)
      return fail(kPerModuleLogSyntax,
                  fmt::format("{}: log level \"{}\" of module {} is not a number from 0 to 0xff; "
                              "per-module logging file not used",
                              where, level_text, name));
    if (le != std::string_view::npos) {
      const auto extra = rest.find_first_not_of(kBlank, le);
      if (extra != std::string_view::npos && rest[extra] != '#')
        out.warnings.push_back({kPerModuleLogUnknownModule,
                                fmt::format("{}: extra text after the log level ignored", where)});
    }
    const auto module = find_log_module(name);
    if (!module) {
      out.warnings.push_back(
          {kPerModuleLogUnknownModule,
           fmt::format("{}: unknown module \"{}\" ignored (OpenSM's source file names such as "
                       "osm_sa.c, or ibsm's: main, mad, discovery, ...; see "
                       "docs/configuration.md)",
                       where, name)});
      continue;
    }
    out.flags[static_cast<std::size_t>(*module)] |= static_cast<unsigned>(*level);
  }
  return out;
}

Result<PerModuleLogging> load_per_module_logging(const std::string& path) {
  if (path.empty()) return PerModuleLogging{};
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT) return PerModuleLogging{};
    return fail(kPerModuleLogUnreadable, fmt::format("cannot open per-module logging file {}: {}",
                                                     path, std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return fail(kPerModuleLogUnreadable, "cannot read per-module logging file " + path);
  return parse_per_module_logging(text.str(), path);
}

void apply_per_module_logging(const Logger& root, const PerModuleLogging& levels) {
  for (const auto& m : log_modules())
    set_module_log_flags(root, m.id, levels.flags_of(m.id));
}

Result<PerModuleLogging> reload_per_module_logging(const Logger& root, const std::string& path) {
  auto levels = load_per_module_logging(path);
  if (levels) apply_per_module_logging(root, *levels);
  return levels;
}

std::string format_per_module_logging(const Logger& root) {
  std::string out;
  for (const auto& m : log_modules()) {
    out += fmt::format("{:<11} 0x{:02x}  {}", m.name, module_log_flags(root, m.id), m.what);
    out += '\n';
  }
  return out;
}

}  // namespace ibsm::conf
