#include "conf/toml_reader.hpp"

#include <toml++/toml.h>

#include <string>

#include "conf/errors.hpp"
#include "conf/option_table.hpp"
#include "conf/option_value.hpp"

namespace ibsm::conf {
namespace {

std::string where(std::string_view origin, const toml::source_region& src) {
  return std::string(origin) + ":" + std::to_string(src.begin.line) + ":" +
         std::to_string(src.begin.column);
}

const char* toml_type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    default:
      return "a date/time";
  }
}

// The option value as opensm.conf text, or nullopt if the TOML type is wrong.
std::optional<std::string> value_text(const OptionRow& row, const toml::node& n) {
  const bool is_bool = std::holds_alternative<bool Options::*>(row.field);
  const bool is_string = std::holds_alternative<std::string Options::*>(row.field);
  if (is_bool) {
    if (auto b = n.value<bool>(); b && n.is_boolean()) return *b ? "TRUE" : "FALSE";
    return std::nullopt;
  }
  if (n.is_string()) {
    std::string s = *n.value<std::string>();
    if (is_string && s.empty()) return std::string("(null)");
    return s;
  }
  if (!is_string && n.is_integer()) return std::to_string(*n.value<std::int64_t>());
  return std::nullopt;
}

std::string expected_type(const OptionRow& row) {
  if (std::holds_alternative<bool Options::*>(row.field)) return "a boolean (true/false)";
  if (std::holds_alternative<std::string Options::*>(row.field)) return "a string";
  return "an integer (or a string such as \"0x1f\")";
}

}  // namespace

Result<std::vector<Warning>> apply_toml(std::string_view text, std::string_view origin,
                                        Options& o) {
  toml::table doc;
  try {
    doc = toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    return fail(kTomlSyntax, where(origin, e.source()) + ": " + std::string(e.description()));
  }
  std::vector<Warning> warnings;
  for (auto&& [sec_key, sec_node] : doc) {
    const std::string sec_name(sec_key.str());
    const Section* section = nullptr;
    for (const Section& s : kAllSections) {
      if (section_name(s) == sec_name) section = &s;
    }
    if (section == nullptr || !sec_node.is_table()) {
      std::string msg = where(origin, sec_key.source()) + ": \"" + sec_name + "\" is not ";
      msg += section ? "a table" : "a known section; sections are:";
      if (!section) {
        for (Section s : kAllSections)
          msg += " [" + std::string(section_name(s)) + "]";
        if (find_option(sec_name)) {
          msg += " (" + sec_name + " belongs in [" +
                 std::string(section_name(find_option(sec_name)->section)) + "])";
        }
      }
      return fail(section ? kTomlSyntax : kTomlUnknownKey, msg);
    }
    for (auto&& [key, node] : *sec_node.as_table()) {
      const std::string name(key.str());
      const std::string full = sec_name + "." + name;
      const OptionRow* row = find_option(name);
      if (row == nullptr || row->key != name) {
        return fail(kTomlUnknownKey,
                    where(origin, key.source()) + ": unknown key \"" + full + "\"");
      }
      if (row->section != *section) {
        return fail(kTomlUnknownKey, where(origin, key.source()) + ": key \"" + full +
                                         "\" belongs in [" +
                                         std::string(section_name(row->section)) + "]");
      }
      auto text_value = value_text(*row, node);
      if (!text_value) {
        return fail(kTomlSyntax, where(origin, node.source()) + ": key \"" + full + "\" is " +
                                     toml_type_name(node) + ", expected " + expected_type(*row));
      }
      auto note = set_value(*row, o, *text_value);
      if (!note) {
        return fail(kBadValue,
                    where(origin, node.source()) + ": " + full + ": " + note.error().message);
      }
    }
  }
  return warnings;
}

}  // namespace ibsm::conf
