#include "sm/cc/cc_settings.hpp"

namespace ibsm::sm::cc {

Result<CcSettings> cc_settings(const conf::Options& o) {
  CcSettings s;
  s.enabled = o.congestion_control;
  s.cc_key = o.cc_key;
  s.max_outstanding = o.cc_max_outstanding_mads == 0 ? 1 : o.cc_max_outstanding_mads;

  auto victim = conf::parse_mask256(o.cc_sw_cong_setting_victim_mask);
  if (!victim.ok()) return fail(victim.error());
  auto credit = conf::parse_mask256(o.cc_sw_cong_setting_credit_mask);
  if (!credit.ok()) return fail(credit.error());
  auto delay = conf::parse_shift_multiplier(o.cc_sw_cong_setting_credit_starvation_return_delay);
  if (!delay.ok()) return fail(delay.error());
  s.sw.control_map = o.cc_sw_cong_setting_control_map;
  s.sw.victim_mask = *victim;
  s.sw.credit_mask = *credit;
  s.sw.threshold = o.cc_sw_cong_setting_threshold;
  s.sw.packet_size = o.cc_sw_cong_setting_packet_size;
  s.sw.cs_threshold = o.cc_sw_cong_setting_credit_starvation_threshold;
  s.sw.cs_return_delay = *delay;
  s.sw.marking_rate = o.cc_sw_cong_setting_marking_rate;

  auto timer = conf::parse_sl_values(o.cc_ca_cong_setting_ccti_timer, 0xffff);
  auto increase = conf::parse_sl_values(o.cc_ca_cong_setting_ccti_increase, 0xff);
  auto trigger = conf::parse_sl_values(o.cc_ca_cong_setting_trigger_threshold, 0xff);
  auto min = conf::parse_sl_values(o.cc_ca_cong_setting_ccti_min, 0xff);
  for (const auto* r : {&timer, &increase, &trigger, &min})
    if (!r->ok()) return fail(r->error());
  s.ca.port_control = o.cc_ca_cong_setting_port_control;
  s.ca.control_map = o.cc_ca_cong_setting_control_map;
  for (std::size_t sl = 0; sl < conf::kCcSls; ++sl) {
    CaCongestionEntry& e = s.ca.entries[sl];
    e.ccti_timer = static_cast<std::uint16_t>((*timer)[sl]);
    e.ccti_increase = static_cast<std::uint8_t>((*increase)[sl]);
    e.trigger_threshold = static_cast<std::uint8_t>((*trigger)[sl]);
    e.ccti_min = static_cast<std::uint8_t>((*min)[sl]);
  }

  auto table = conf::parse_cct_list(o.cc_cct);
  if (!table.ok()) return fail(table.error());
  const std::size_t n = table->size();
  const std::size_t blocks = n == 0 ? 1 : (n - 1) / cct::kEntriesPerBlock + 1;
  const auto limit = static_cast<std::uint16_t>(n == 0 ? 0 : n - 1);
  s.cct.resize(blocks);
  for (std::size_t b = 0; b < blocks; ++b) {
    s.cct[b].ccti_limit = limit;
    for (std::size_t j = 0; j < cct::kEntriesPerBlock; ++j) {
      const std::size_t k = b * cct::kEntriesPerBlock + j;
      if (k < n) s.cct[b].entries[j] = (*table)[k];
    }
  }
  return s;
}

}  // namespace ibsm::sm::cc
