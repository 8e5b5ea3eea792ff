#include "sm/health/policy_file.hpp"

#include <fmt/format.h>

#include <fstream>
#include <map>
#include <sstream>

#include "common/lines.hpp"
#include "common/text.hpp"
#include "sm/health/errors.hpp"

namespace ibsm::sm::health {
namespace {

std::vector<std::string_view> tokens(std::string_view line) {
  std::vector<std::string_view> out;
  while (true) {
    line = trim(line);
    if (line.empty()) return out;
    const auto e = line.find_first_of(" \t\v\f\r");
    out.push_back(line.substr(0, e));
    if (e == std::string_view::npos) return out;
    line.remove_prefix(e);
  }
}

std::optional<Guid> parse_guid(std::string_view s) {
  if (s.starts_with("0x") || s.starts_with("0X")) s.remove_prefix(2);
  if (s.empty() || s.size() > 16) return std::nullopt;
  Guid v = 0;
  for (char c : s) {
    int d = 0;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      d = c - 'A' + 10;
    } else {
      return std::nullopt;
    }
    v = (v << 4) | static_cast<Guid>(d);
  }
  return v;
}

std::optional<PortNum> parse_port(std::string_view s) {
  if (s.empty() || s.size() > 3) return std::nullopt;
  unsigned v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  if (v > 254) return std::nullopt;
  return static_cast<PortNum>(v);
}

}  // namespace

Result<HealthPolicy> HealthPolicy::parse(std::string_view text, std::string_view file) {
  HealthPolicy p;
  p.source_ = std::string(file);
  for (const text::Line& l : text::Lines(text)) {
    std::string_view line = l.text;
    const unsigned line_no = l.number;
    if (const auto hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    const auto t = tokens(line);
    if (t.empty()) continue;
    auto bad = [&](std::string_view what) {
      return fail(kErrHealthPolicySyntax,
                  fmt::format("{}:{}: {}; health policy not loaded", file, line_no, what));
    };
    if (t.size() != 3)
      return bad(fmt::format("{} fields where `GUID PORT HEALTHY|UNHEALTHY` has 3", t.size()));
    const auto guid = parse_guid(t[0]);
    if (!guid) return bad(fmt::format("'{}' is not a GUID (at most 16 hex digits)", t[0]));
    const auto port = parse_port(t[1]);
    if (!port) return bad(fmt::format("'{}' is not a port number (0-254)", t[1]));
    PortHealth health;
    if (iequal(t[2], "HEALTHY")) {
      health = PortHealth::kHealthy;
    } else if (iequal(t[2], "UNHEALTHY")) {
      health = PortHealth::kUnhealthy;
    } else {
      return bad(fmt::format("'{}' is neither HEALTHY nor UNHEALTHY", t[2]));
    }
    auto [it, fresh] = p.index_.try_emplace({*guid, *port}, p.entries_.size());
    if (!fresh && p.entries_[it->second].health != health)
      return bad(fmt::format("{} port {} is HEALTHY and UNHEALTHY (line {})", hex_guid(*guid),
                             *port, p.entries_[it->second].line));
    p.entries_.push_back({*guid, *port, health, line_no});
  }
  return p;
}

Result<HealthPolicy> HealthPolicy::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(kErrHealthPolicyUnreadable, "cannot open health policy file " + path);
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return fail(kErrHealthPolicyUnreadable, "cannot read health policy file " + path);
  return parse(text.str(), path);
}

Status HealthPolicy::check_ports(
    const std::function<std::optional<unsigned>(Guid)>& num_ports) const {
  for (const PolicyEntry& e : entries_) {
    const auto n = num_ports(e.guid);
    if (!n)
      return fail(kErrHealthPolicyUnknownPort,
                  fmt::format("{}:{}: no node has GUID {}; health policy not loaded", source_,
                              e.line, hex_guid(e.guid)));
    if (e.port > *n)
      return fail(kErrHealthPolicyUnknownPort,
                  fmt::format("{}:{}: {} has ports 0-{}, not {}; health policy not loaded", source_,
                              e.line, hex_guid(e.guid), *n, e.port));
  }
  return {};
}

std::optional<PortHealth> HealthPolicy::find(Guid node_guid, Guid port_guid, PortNum port) const {
  auto it = index_.find({node_guid, port});
  if (it == index_.end() && port_guid != 0) it = index_.find({port_guid, port});
  if (it == index_.end()) return std::nullopt;
  return entries_[it->second].health;
}

PolicyReload reload_policy(const std::string& path,
                           const std::function<std::optional<unsigned>(Guid)>& num_ports,
                           const HealthPolicy& current) {
  if (path.empty()) return {HealthPolicy{}, std::nullopt};
  auto loaded = HealthPolicy::load(path);
  if (!loaded) return {current, loaded.error()};
  if (auto checked = loaded->check_ports(num_ports); !checked) return {current, checked.error()};
  return {std::move(*loaded), std::nullopt};
}

}  // namespace ibsm::sm::health
