#include "conf/option_table.hpp"

#include <array>

namespace ibsm::conf {
namespace {

#define IBSM_CONF_ROW(section, key, type, def, spec, reload, impl, cli, help) \
  OptionRow{#key, Section::section, &Options::key, spec, Reload::reload, Impl::impl, cli, help},

const std::array kRows = {IBSM_CONF_OPTIONS(IBSM_CONF_ROW)};

#undef IBSM_CONF_ROW

}  // namespace

std::span<const OptionRow> option_rows() {
  return kRows;
}

const OptionRow* find_option(std::string_view key) {
  if (key == "dimn_ports_file") key = "port_search_ordering_file";  // OpenSM's old name
  for (const auto& row : kRows) {
    if (row.key == key) return &row;
  }
  return nullptr;
}

}  // namespace ibsm::conf
