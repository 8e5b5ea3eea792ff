// Fuzz target: any bytes as the values of the congestion-control keys
// (conf/cc_values.hpp) and as an answer to a Congestion Control Set
// (sm/cc/cc_layouts.hpp parse_cc_answer). Beyond "no crash": an accepted value is in
// its field's range and a per-SL merge keeps the canonical form, and the check and
// the parser agree.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "conf/cc_values.hpp"
#include "sm/cc/cc_layouts.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ibsm;
  constexpr std::string_view kTarget = "cc_values";
  const std::string_view text = fuzz::as_text(data, size);

  auto cct = conf::parse_cct_list(text);
  fuzz::expect(cct.ok() == (conf::check_cct_list(text) == nullptr), kTarget, "cct check differs");
  if (cct.ok()) {
    fuzz::expect(cct->size() <= conf::kMaxCctEntries, kTarget, "too many CCT entries");
    for (const auto& e : *cct)
      fuzz::expect(e.shift <= 3 && e.multiplier <= 16383, kTarget, "CCT entry out of range");
  }
  auto sm = conf::parse_shift_multiplier(text);
  if (sm.ok()) fuzz::expect(sm->shift <= 3 && sm->multiplier <= 16383, kTarget, "out of range");
  static_cast<void>(conf::parse_mask256(text));
  auto sl = conf::parse_sl_values(text, 0xff);
  fuzz::expect(sl.ok() == (conf::check_sl_values8(text) == nullptr), kTarget, "SL check differs");
  if (sl.ok()) {
    for (std::uint32_t v : *sl)
      fuzz::expect(v <= 0xff, kTarget, "SL value above 255");
    const std::string canonical = conf::format_sl_values(*sl);
    fuzz::expect(conf::check_sl_values8(canonical) == nullptr, kTarget, "canonical form refused");
  }
  const std::string merged = conf::merge_sl_values16("0 0", text);
  if (merged != text)
    fuzz::expect(conf::check_sl_values16(merged) == nullptr, kTarget, "merge made a bad list");

  auto answer = sm::cc::parse_cc_answer(std::span(data, size));
  if (answer.ok()) fuzz::expect(size >= sm::cc::kCcMadSize, kTarget, "short answer accepted");
  return 0;
}
