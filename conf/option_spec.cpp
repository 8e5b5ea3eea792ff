#include "conf/option_spec.hpp"

#include <cctype>

namespace ibsm::conf {

std::string_view section_name(Section s) {
  switch (s) {
    case Section::kDevice:
      return "device";
    case Section::kPartitions:
      return "partitions";
    case Section::kSweep:
      return "sweep";
    case Section::kRouting:
      return "routing";
    case Section::kHandover:
      return "handover";
    case Section::kTiming:
      return "timing";
    case Section::kMisc:
      return "misc";
    case Section::kPerfmgr:
      return "perfmgr";
    case Section::kEvents:
      return "events";
    case Section::kLogging:
      return "logging";
    case Section::kQos:
      return "qos";
    case Section::kCongestion:
      return "congestion";
    case Section::kIbsm:
      return "ibsm";
  }
  return "?";
}

std::string_view section_title(Section s) {
  switch (s) {
    case Section::kDevice:
      return "DEVICE ATTRIBUTES";
    case Section::kPartitions:
      return "PARTITIONING";
    case Section::kSweep:
      return "SWEEP";
    case Section::kRouting:
      return "ROUTING";
    case Section::kHandover:
      return "HANDOVER - MULTIPLE SMs";
    case Section::kTiming:
      return "TIMING AND THREADING";
    case Section::kMisc:
      return "MISC";
    case Section::kPerfmgr:
      return "PERFORMANCE MANAGER";
    case Section::kEvents:
      return "EVENT DB, EVENT PLUGINS, NODE NAMES";
    case Section::kLogging:
      return "LOGGING AND DEBUG";
    case Section::kQos:
      return "QoS";
    case Section::kCongestion:
      return "CONGESTION CONTROL (experimental)";
    case Section::kIbsm:
      return "ibsm extensions (OpenSM ignores these keys)";
  }
  return "?";
}

namespace {

bool all_digits(std::string_view v, bool hex) {
  if (v.empty()) return false;
  for (char c : v) {
    const auto u = static_cast<unsigned char>(c);
    if (!(hex ? std::isxdigit(u) : std::isdigit(u))) return false;
  }
  return true;
}

bool is_shift_mult(std::string_view v) {
  const auto colon = v.find(':');
  return colon != std::string_view::npos && all_digits(v.substr(0, colon), false) &&
         all_digits(v.substr(colon + 1), false);
}

}  // namespace

const char* check_hex_mask256(std::string_view v) {
  if (v.starts_with("0x") || v.starts_with("0X")) v.remove_prefix(2);
  if (v.size() <= 64 && all_digits(v, true)) return nullptr;
  return "a hexadecimal mask of at most 256 bits (0x followed by up to 64 hex digits)";
}

const char* check_shift_mult(std::string_view v) {
  return is_shift_mult(v) ? nullptr : "shift:multiplier (two decimal numbers)";
}

const char* check_sl_value(std::string_view v) {
  const auto sp = v.find_first_of(" \t");
  if (sp != std::string_view::npos) {
    auto rest = v.substr(sp);
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t'))
      rest.remove_prefix(1);
    if (all_digits(v.substr(0, sp), false) && all_digits(rest, false)) return nullptr;
  }
  return "<SL> <value> (two decimal numbers)";
}

const char* check_shift_mult_list(std::string_view v) {
  while (true) {
    const auto comma = v.find(',');
    if (!is_shift_mult(v.substr(0, comma))) break;
    if (comma == std::string_view::npos) return nullptr;
    v.remove_prefix(comma + 1);
  }
  return "a comma-separated list of shift:multiplier";
}

}  // namespace ibsm::conf
