// The congestion-control keys of opensm.conf turned into the attribute values the
// SM Sets (OpenSM's cc_setup_mad_data): one SwitchCongestionSetting for every
// switch, one CACongestionSetting and the CongestionControlTable blocks for every
// CA port.
#pragma once

#include <cstdint>
#include <vector>

#include "common/result.hpp"
#include "conf/options.hpp"
#include "sm/cc/cc_layouts.hpp"

namespace ibsm::sm::cc {

struct CcSettings {
  bool enabled = false;
  std::uint64_t cc_key = 0;
  std::uint32_t max_outstanding = 500;
  SwitchCongestionSetting sw;
  CaCongestionSetting ca;
  // At least one block: with no cc_cct a single block with CCTI_Limit 0, as OpenSM.
  // Every block carries CCTI_Limit = entries - 1.
  std::vector<CctBlock> cct;
  bool operator==(const CcSettings&) const = default;
};

// The values were checked when the configuration was read (conf/cc_values.hpp);
// this still returns an error rather than trusting that.
Result<CcSettings> cc_settings(const conf::Options& o);

}  // namespace ibsm::sm::cc
