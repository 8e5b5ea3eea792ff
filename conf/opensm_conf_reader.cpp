#include "conf/opensm_conf_reader.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/text.hpp"
#include "conf/errors.hpp"
#include "conf/option_table.hpp"
#include "conf/option_value.hpp"

namespace ibsm::conf {
namespace {

std::string_view unquote(std::string_view v) {
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) {
    return v.substr(1, v.size() - 2);
  }
  return v;
}

}  // namespace

Result<std::vector<Warning>> apply_opensm_conf(std::string_view text, std::string_view origin,
                                               Options& o, bool strict) {
  std::vector<Warning> warnings;
  std::size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);

    const std::string where = std::string(origin) + ":" + std::to_string(line_no);
    if (line.size() > kMaxConfLine) {
      return fail(kLineTooLong, where + ": line is " + std::to_string(line.size()) +
                                    " characters long; at most " + std::to_string(kMaxConfLine) +
                                    " are allowed");
    }
    const bool ibsm_line = line.starts_with(trim(kIbsmKeyMarker));
    if (ibsm_line) line.remove_prefix(trim(kIbsmKeyMarker).size());
    line = line.substr(0, line.find('#'));
    line = trim(line);
    if (line.empty()) continue;

    const auto key_end = line.find_first_of(" \t");
    const std::string_view key = line.substr(0, key_end);
    const std::string_view value = key_end == std::string_view::npos
                                       ? std::string_view{}
                                       : unquote(trim(line.substr(key_end)));

    const OptionRow* row = find_option(key);
    if (row == nullptr) {
      const std::string msg = where + ": unknown key \"" + std::string(key) + "\"";
      if (strict) return fail(kUnknownKey, msg + " (--strict)");
      warnings.push_back({kUnknownKey, msg + ", line ignored"});
      continue;
    }
    if (ibsm_line && !is_ibsm_extension(row->section)) {
      warnings.push_back({kOpensmKeyInIbsmLine,
                          where + ": \"" + std::string(key) +
                              "\" is an OpenSM key; OpenSM does not read \"#ibsm:\" lines, so "
                              "ibsm ignores it there too. Write it without \"#ibsm:\"."});
      continue;
    }
    if (value.empty()) {
      warnings.push_back(
          {kMissingValue, where + ": key \"" + std::string(key) + "\" has no value, line ignored"});
      continue;
    }
    // A key whose lines add up (per-SL congestion settings) merges this line into
    // what the earlier lines (or the default) gave.
    const std::string merged =
        row->spec.merge != nullptr ? row->spec.merge(format_value(*row, o), value) : std::string();
    auto note = set_value(*row, o, row->spec.merge != nullptr ? std::string_view(merged) : value);
    if (!note) return fail(kBadValue, where + ": " + note.error().message);
    if (!note->empty()) warnings.push_back({kNonCanonicalBoolean, where + ": " + *note});
  }
  return warnings;
}

Result<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return fail(kFileUnreadable, "cannot open " + path + ": " + std::strerror(errno));
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return fail(kFileUnreadable, "cannot read " + path);
  return buf.str();
}

}  // namespace ibsm::conf
