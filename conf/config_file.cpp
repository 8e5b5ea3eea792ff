#include "conf/config_file.hpp"

#include "conf/errors.hpp"
#include "conf/opensm_conf_reader.hpp"
#include "conf/option_table.hpp"
#include "conf/option_value.hpp"
#include "conf/toml_reader.hpp"

namespace ibsm::conf {

bool is_toml_path(const std::string& path) {
  return path.ends_with(".toml");
}

Result<std::vector<Warning>> load_config_file(const std::string& path, Options& o, bool strict) {
  auto text = read_text_file(path);
  if (!text) return fail(text.error());
  if (is_toml_path(path)) return apply_toml(*text, path, o);
  return apply_opensm_conf(*text, path, o, strict);
}

std::optional<Warning> unimplemented_options_warning(const Options& o) {
  std::string list;
  for (const OptionRow& row : option_rows()) {
    if (row.impl == Impl::kYes || is_default(row, o)) continue;
    if (!list.empty()) list += ", ";
    list += std::string(row.key) + " " + format_value(row, o) + " (default " + format_default(row) +
            ")";
  }
  if (list.empty()) return std::nullopt;
  return Warning{kUnimplementedOptions,
                 "ibsm does not implement these options yet and runs as if they had their "
                 "default: " +
                     list};
}

}  // namespace ibsm::conf
