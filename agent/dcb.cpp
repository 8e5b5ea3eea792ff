#include "agent/dcb.hpp"
#include "agent/input_grammar.hpp"

#include <sstream>

#include "agent/command_output.hpp"

namespace ibsm::agent {
namespace {

// 0..hi, or -1.
int small(const std::string& s, int hi) {
  auto v = parse_uint(s, static_cast<std::uint64_t>(hi < 0 ? 0 : hi));
  return v && hi >= 0 ? static_cast<int>(*v) : -1;
}

// Why a show command failed, for the skipped verdict.
std::string why_not(const CommandResult& r, const std::string& what) {
  if (r.status == -1 || r.status == 127) return "dcb (iproute2) is not installed";
  std::string said = last_line(r.output);
  if (said.find("not supported") != std::string::npos ||
      said.find("Operation not supported") != std::string::npos)
    return "the NIC driver has no DCB " + what + " support (" + said + ")";
  if (said.find("unknown") != std::string::npos || said.find("Unknown") != std::string::npos)
    return "the installed dcb has no " + what + " (" + said + "; iproute2 6.3 or later has it)";
  return "dcb cannot read " + what + " (exit " + std::to_string(r.status) + ": " + said + ")";
}

// An 8-entry table from "i:value" pairs; entries out of 0..7 are dropped.
template <class T, class F>
std::vector<T> table8(const std::vector<std::pair<std::string, std::string>>& pairs, T none,
                      F&& value) {
  std::vector<T> out(8, none);
  for (const auto& [k, v] : pairs) {
    int i = small(k, 7);
    if (i >= 0) out[static_cast<std::size_t>(i)] = value(v);
  }
  return out;
}

}  // namespace

std::map<std::string, std::vector<std::pair<std::string, std::string>>> parse_dcb_show(
    const std::string& text) {
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string attr;
    if (!(words >> attr)) continue;
    auto& pairs = out[attr];
    for (std::string w; words >> w;) {
      auto colon = w.find(':');
      if (colon == std::string::npos)
        pairs.emplace_back(w, "");
      else
        pairs.emplace_back(w.substr(0, colon), w.substr(colon + 1));
    }
  }
  return out;
}

void read_pfc(const std::string& text, DcbState& state) {
  auto shown = parse_dcb_show(text);
  if (auto it = shown.find("prio-pfc"); it != shown.end())
    state.pfc = table8<bool>(it->second, false, [](const std::string& v) { return v == "on"; });
}

void read_ets(const std::string& text, DcbState& state) {
  auto shown = parse_dcb_show(text);
  if (auto it = shown.find("prio-tc"); it != shown.end())
    state.prio_tc = table8<int>(it->second, -1, [](const std::string& v) { return small(v, 7); });
  if (auto it = shown.find("tc-bw"); it != shown.end())
    state.tc_bw = table8<int>(it->second, -1, [](const std::string& v) { return small(v, 100); });
  if (auto it = shown.find("tc-tsa"); it != shown.end())
    state.tc_tsa = table8<std::string>(it->second, "", [](const std::string& v) { return v; });
}

void read_app(const std::string& text, DcbState& state) {
  auto shown = parse_dcb_show(text);
  if (auto it = shown.find("dscp-prio"); it != shown.end())
    for (const auto& [k, v] : it->second) {
      int dscp = small(k, 63), prio = small(v, 7);
      if (dscp >= 0 && prio >= 0) state.dscp_prio[dscp] = prio;
    }
}

void read_apptrust(const std::string& text, DcbState& state) {
  auto shown = parse_dcb_show(text);
  for (const char* attr : {"order", "order:"})
    if (auto it = shown.find(attr); it != shown.end())
      for (const auto& [k, v] : it->second)
        if (v.empty() && (k == "pcp" || k == "dscp")) state.trust.push_back(k);
}

DcbState DcbTool::read(const std::string& netdev) const {
  DcbState s;
  auto show = [&](std::vector<std::string> argv, const std::string& what, std::string& why,
                  void (*parse)(const std::string&, DcbState&)) {
    CommandResult r = runner_.run(argv);
    if (r.status != 0)
      why = why_not(r, what);
    else
      parse(r.output, s);
  };
  show({"dcb", "pfc", "show", "dev", netdev, "prio-pfc"}, "PFC", s.pfc_unsupported, read_pfc);
  show({"dcb", "ets", "show", "dev", netdev, "prio-tc", "tc-bw", "tc-tsa"}, "ETS",
       s.ets_unsupported, read_ets);
  // -N: DSCP values as numbers, not names (AF31, CS6).
  show({"dcb", "-N", "app", "show", "dev", netdev, "dscp-prio"}, "APP (DSCP map)",
       s.app_unsupported, read_app);
  show({"dcb", "apptrust", "show", "dev", netdev, "order"}, "apptrust (trust order)",
       s.trust_unsupported, read_apptrust);
  return s;
}

}  // namespace ibsm::agent
