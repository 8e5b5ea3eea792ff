#include "conf/reload.hpp"

#include "conf/config_file.hpp"
#include "conf/option_table.hpp"
#include "conf/option_value.hpp"

namespace ibsm::conf {

Result<Reloaded> reload_config(const Options& running, const Options& last_file_values,
                               const std::vector<std::string>& files) {
  Reloaded out;
  for (const auto& path : files) {
    auto ws = load_config_file(path, out.file_values, running.strict);
    if (!ws) return fail(ws.error());
    out.warnings.insert(out.warnings.end(), ws->begin(), ws->end());
  }
  out.options = running;
  for (const OptionRow& row : option_rows()) {
    const std::string before = format_value(row, last_file_values);
    const std::string now = format_value(row, out.file_values);
    const bool given = out.file_values.given.contains(row.key);
    // A key written into the file with its default value is a change too: a
    // given max_wire_smps caps the adaptive SMP window.
    if (before == now && given == last_file_values.given.contains(row.key)) continue;
    if (row.reload == Reload::kRestart) {
      out.need_restart.push_back(std::string(row.key) + " " + now);
      continue;
    }
    const std::string old_value = format_value(row, out.options);
    std::visit([&](auto f) { out.options.*f = out.file_values.*f; }, row.field);
    out.options.given.set(row.key, given);
    out.changed.push_back(std::string(row.key) + " " + old_value + " -> " + now);
  }
  apply_deprecated_keys(out.options);
  // The file_values of the next reload keep the non-table fields of the run.
  out.file_values.config_file = running.config_file;
  if (auto w = unimplemented_options_warning(out.options)) out.warnings.push_back(*w);
  return out;
}

}  // namespace ibsm::conf
