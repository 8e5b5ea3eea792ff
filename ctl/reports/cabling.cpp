// topo_diff and degraded: the last heavy sweep's cabling check (ops::CablingStatus),
// one deviation a line with both ends named; --json is cabling::deviations_json's array.
#include <string>

#include <spdlog/fmt/fmt.h>

#include "cabling/deviation.hpp"
#include "ctl/reports/families.hpp"

namespace ibsm::ctl::reports {

namespace {

std::string end_text(const cabling::DeviationEnd& e) {
  if (e.guid == 0) return "(none)";
  return fmt::format("{}[{}] \"{}\"", hex16(e.guid), e.port, e.name);
}

// wrong_port     0x0000000000200002[1] "leaf1" - 0x0000000000100002[1] "h2": expected ...
std::string lines_of(const std::vector<cabling::Deviation>& list) {
  std::string out;
  for (const auto& d : list)
    out +=
        fmt::format("{:<14} {} - {}: expected {}, found {}\n", cabling::deviation_kind_name(d.kind),
                    end_text(d.local), end_text(d.remote), d.expected, d.found);
  return out;
}

}  // namespace

Answer topo_diff(const OpsSnapshot& s) {
  const ops::CablingStatus none;  // before the SM's first publish only
  const ops::CablingStatus& c = s.cabling ? *s.cabling : none;
  Answer a;
  a.json = cabling::deviations_json(c.deviations);
  if (c.file.empty()) {
    a.text =
        "no topo_config_file: the cabling is not compared (`degraded` lists the links "
        "below their rate)\n";
    return a;
  }
  if (!c.file_ok)
    a.text +=
        fmt::format("topo_config_file {} IN ERROR, {}: {}\n", c.file,
                    c.file_loaded ? "the last good one is in force" : "none in force", c.error);
  if (!c.file_loaded) return a;
  if (!c.checked) {
    a.text +=
        fmt::format("topo_config_file {}: no heavy sweep has compared the cabling yet\n", c.file);
    return a;
  }
  a.text += fmt::format("{} deviations from topo_config_file {} (heavy sweep at {})\n",
                        c.deviations.size(), c.file, ops::format_utc(c.when));
  a.text += lines_of(c.deviations);
  return a;
}

Answer degraded(const OpsSnapshot& s) {
  const ops::CablingStatus none;  // before the SM's first publish only
  const ops::CablingStatus& c = s.cabling ? *s.cabling : none;
  Answer a;
  a.json = cabling::deviations_json(c.degraded);
  if (!c.checked) {
    a.text = "no heavy sweep has checked the links yet\n";
    return a;
  }
  a.text =
      fmt::format("{} links below the best width or speed both ends support (heavy sweep at {})\n",
                  c.degraded.size(), ops::format_utc(c.when));
  a.text += lines_of(c.degraded);
  return a;
}

}  // namespace ibsm::ctl::reports
