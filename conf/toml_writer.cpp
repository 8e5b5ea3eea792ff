#include "conf/toml_writer.hpp"

#include <cstdio>

#include "conf/option_table.hpp"
#include "conf/option_value.hpp"

namespace ibsm::conf {
namespace {

std::string toml_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string toml_value(const OptionRow& row, const Options& o) {
  if (std::holds_alternative<bool Options::*>(row.field))
    return o.*std::get<0>(row.field) ? "true" : "false";
  if (std::holds_alternative<std::string Options::*>(row.field)) {
    return toml_string(o.*std::get<std::string Options::*>(row.field));
  }
  // 64-bit hex values may exceed TOML's signed integers: keep them as strings.
  if (row.spec.fmt == Fmt::kHex && row.spec.width == 16) return toml_string(format_value(row, o));
  return format_value(row, o);  // decimal, or 0x.. which TOML reads as hex
}

}  // namespace

std::string write_toml(const Options& o) {
  std::string out = "# ibsm.toml\n";
  for (Section s : kAllSections) {
    out += "\n[";
    out += section_name(s);
    out += "]\n";
    for (const OptionRow& row : option_rows()) {
      if (row.section != s) continue;
      out += "# ";
      out += row.help;
      out += "\n";
      out += row.key;
      out += " = ";
      out += toml_value(row, o);
      out += '\n';
    }
  }
  return out;
}

}  // namespace ibsm::conf
