// The option rows of conf/option_list.hpp as data: one OptionRow per key, with
// a typed pointer to its Options field.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "conf/option_spec.hpp"
#include "conf/options.hpp"

namespace ibsm::conf {

using FieldRef = std::variant<bool Options::*, std::uint8_t Options::*, std::uint16_t Options::*,
                              std::uint32_t Options::*, std::uint64_t Options::*,
                              std::int32_t Options::*, std::string Options::*>;

struct OptionRow {
  std::string_view key;
  Section section;
  FieldRef field;
  Spec spec;
  Reload reload;
  Impl impl;
  Cli cli;
  std::string_view help;
};

// All rows: OpenSM's keys in OpenSM's dump order, then the ibsm extension keys
// (is_ibsm_extension(row.section)).
std::span<const OptionRow> option_rows();

// The row of an opensm.conf key (also accepts OpenSM's alias dimn_ports_file),
// or nullptr.
const OptionRow* find_option(std::string_view key);

}  // namespace ibsm::conf
