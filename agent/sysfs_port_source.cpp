#include "agent/input_grammar.hpp"
#include "agent/port_source.hpp"

#include <algorithm>
#include <cstdlib>
#include <tuple>

namespace ibsm::agent {

constexpr std::string_view ib_class_dir = "/sys/class/infiniband";

std::pair<int, std::string> parse_numbered_state(const std::string& text) {
  auto colon = text.find(':');
  auto number = [](const std::string& s) {
    return static_cast<int>(parse_sysfs_uint(s, 255).value_or(0));
  };
  if (colon == std::string::npos) return {number(text), trim(text)};
  return {number(text.substr(0, colon)), trim(text.substr(colon + 1))};
}

std::uint64_t gid_guid(const std::string& gid) {
  std::uint64_t guid = 0;
  int groups = 0;
  std::string t = trim(gid);
  // The last four ':'-separated 16-bit groups.
  std::size_t pos = t.size();
  for (int i = 0; i < 4 && pos != std::string::npos; ++i) {
    auto colon = t.rfind(':', pos == 0 ? 0 : pos - 1);
    std::string part = t.substr(colon == std::string::npos ? 0 : colon + 1,
                                pos - (colon == std::string::npos ? 0 : colon + 1));
    auto v = part.empty()       ? std::optional<std::uint64_t>(0)
             : part.size() <= 4 ? parse_uint(part, 0xffff, 16)
                                : std::nullopt;
    if (!v) return 0;
    guid |= *v << (16 * i);
    ++groups;
    pos = colon;
  }
  return groups == 4 ? guid : 0;
}

static bool zero_gid(const std::string& gid) {
  return gid.find_first_not_of("0:") == std::string::npos;
}

void read_gids(const Fs& fs, const std::string& dev, PortState& port) {
  std::string base =
      std::string(ib_class_dir) + "/" + dev + "/ports/" + std::to_string(port.number);
  for (const auto& idx : fs.list(base + "/gids")) {
    std::string gid = trim(fs.read(base + "/gids/" + idx).value_or(""));
    if (gid.empty() || zero_gid(gid)) continue;
    GidEntry g;
    auto index = parse_uint(idx, 0xffff);
    if (!index) continue;
    g.index = static_cast<int>(*index);
    g.gid = gid;
    g.type = trim(fs.read(base + "/gid_attrs/types/" + idx).value_or(""));
    g.ndev = trim(fs.read(base + "/gid_attrs/ndevs/" + idx).value_or(""));
    port.gids.push_back(g);
  }
  std::sort(port.gids.begin(), port.gids.end(),
            [](const GidEntry& a, const GidEntry& b) { return a.index < b.index; });
}

Result<std::vector<RdmaDevice>> SysfsPortSource::devices() const {
  std::vector<RdmaDevice> out;
  for (const auto& name : fs_.list(std::string(ib_class_dir))) {
    std::string base = std::string(ib_class_dir) + "/" + name;
    RdmaDevice d;
    d.name = name;
    d.node_type = parse_numbered_state(fs_.read(base + "/node_type").value_or("")).second;
    std::string ng = trim(fs_.read(base + "/node_guid").value_or(""));
    d.node_guid = gid_guid("0:0:0:0:" + ng);
    d.parent = trim(fs_.read(base + "/parent").value_or(""));
    for (const auto& pn : fs_.list(base + "/ports")) {
      std::string pb = base + "/ports/" + pn;
      PortState p;
      auto number = parse_uint(pn, 255);
      if (!number) continue;
      p.number = static_cast<int>(*number);
      std::tie(p.state_code, p.state) = parse_numbered_state(fs_.read(pb + "/state").value_or(""));
      p.phys_state = parse_numbered_state(fs_.read(pb + "/phys_state").value_or("")).second;
      // "0x1\n": the kernel writes LIDs in hex.
      p.lid = static_cast<unsigned>(
          parse_sysfs_uint(fs_.read(pb + "/lid").value_or(""), 0xffff, 16).value_or(0));
      p.sm_lid = static_cast<unsigned>(
          parse_sysfs_uint(fs_.read(pb + "/sm_lid").value_or(""), 0xffff, 16).value_or(0));
      p.link_layer = trim(fs_.read(pb + "/link_layer").value_or("InfiniBand"));
      // "100 Gb/sec (4X EDR)", "2.5 Gb/sec (1X SDR)"
      p.rate_gbps = std::strtod(fs_.read(pb + "/rate").value_or("0").c_str(), nullptr);
      p.guid = gid_guid(fs_.read(pb + "/gids/0").value_or(""));
      for (const auto& idx : fs_.list(pb + "/pkeys")) {
        auto v = parse_sysfs_uint(fs_.read(pb + "/pkeys/" + idx).value_or(""), 0xffff, 16);
        auto index = parse_uint(idx, 0xffff);
        if (v && index && (*v & 0x7fff) != 0)
          p.pkeys.push_back({static_cast<int>(*index), static_cast<std::uint16_t>(*v)});
      }
      std::sort(p.pkeys.begin(), p.pkeys.end(),
                [](const PKeyEntry& a, const PKeyEntry& b) { return a.index < b.index; });
      read_gids(fs_, name, p);
      d.ports.push_back(std::move(p));
    }
    std::sort(d.ports.begin(), d.ports.end(),
              [](const PortState& a, const PortState& b) { return a.number < b.number; });
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace ibsm::agent
