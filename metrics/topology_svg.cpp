#include "metrics/topology_svg.hpp"

#include <algorithm>
#include <array>

#include "metrics/markup.hpp"

namespace ibsm::metrics {

namespace {

using markup::coord;
using markup::escaped;
using markup::number;

constexpr std::size_t kLevels = 4;
constexpr std::size_t kHostNamesInTitle = 5;

// In the SVG itself, so that /topology.svg alone looks as it does in the page.
constexpr std::string_view kSvgStyle = R"(<style>
#topology .link,#topology .hostlink{fill:none;stroke-width:1}
#topology .ok{stroke:#9ab}#topology .past{stroke:#db8}#topology .rising{stroke:#e80;stroke-width:2}
#topology .high{stroke:#d00;stroke-width:3}
#topology rect.sw{fill:#369;stroke:#fff}#topology rect.sw.past{fill:#a86}
#topology rect.sw.rising{fill:#e80}#topology rect.sw.high{fill:#d00}
#topology rect.hosts{fill:#7a7;stroke:none}#topology rect.hosts.past{fill:#a86}
#topology rect.hosts.rising{fill:#e80}#topology rect.hosts.high{fill:#d00}
#topology text{font-size:9px;fill:#333}
</style>
)";

// The node_name_map name, else the NodeDescription (names::name_of), as the SM's logs
// and dumps name nodes.
std::string node_name(const sa::SnapNode& n, const names::NodeNameMap* name_map) {
  return names::name_of(name_map, n.guid(), n.description);
}

void segment(std::string& d, double x1, double y1, double x2, double y2) {
  d += 'M';
  coord(d, x1);
  d += ' ';
  coord(d, y1);
  d += 'L';
  coord(d, x2);
  d += ' ';
  coord(d, y2);
}

void rect_attrs(std::string& out, double cx, double cy, double w, double h) {
  out += " x=\"";
  coord(out, cx - w / 2);
  out += "\" y=\"";
  coord(out, cy - h / 2);
  out += "\" width=\"";
  coord(out, w);
  out += "\" height=\"";
  coord(out, h);
  out += '"';
}

ErrorLevel worse(ErrorLevel a, ErrorLevel b) {
  return std::max(a, b);
}

}  // namespace

std::string topology_svg(const TopologyLayout& l, const sa::Snapshot& f, const PortErrors& e,
                         const names::NodeNameMap* names) {
  std::string out;
  out.reserve(256 + l.switches.size() * 260 + l.links.size() * 24);
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"topology\" viewBox=\"0 0 ";
  coord(out, l.width);
  out += ' ';
  coord(out, l.height);
  out += "\" width=\"";
  coord(out, l.width);
  out += "\" height=\"";
  coord(out, l.height);
  out += "\" data-switches=\"";
  number(out, l.switches.size());
  out += "\" data-layout=\"";
  out += l.tiered ? "tiers" : "graph";
  out += "\">\n";
  out += kSvgStyle;

  // Links: one path per level for the many, an element with a title for each link
  // with errors (up to the bound).
  std::array<std::string, kLevels> merged;
  std::size_t error_links = 0;
  std::string own;
  for (const LayoutLink& k : l.links) {
    const LayoutSwitch& a = l.switches[k.a];
    const LayoutSwitch& b = l.switches[k.b];
    const mad::Guid ga = f.nodes[a.node].guid(), gb = f.nodes[b.node].guid();
    ErrorLevel level = ErrorLevel::kNone;
    for (const auto& [pa, pb] : k.cables)
      level = worse(level, worse(e.level(ga, pa), e.level(gb, pb)));
    if (level == ErrorLevel::kNone || error_links >= kMaxErrorLinks) {
      segment(merged[static_cast<std::size_t>(level)], a.x, a.y, b.x, b.y);
      continue;
    }
    ++error_links;
    own += "<path class=\"link ";
    own += error_level_class(level);
    own += "\" d=\"";
    segment(own, a.x, a.y, b.x, b.y);
    own += "\"><title>";
    escaped(own, node_name(f.nodes[a.node], names));
    own += " \xe2\x80\x94 ";  // em dash
    escaped(own, node_name(f.nodes[b.node], names));
    own += ": errors (";
    own += error_level_class(level);
    own += ") on ports";
    for (const auto& [pa, pb] : k.cables) {
      own += ' ';
      number(own, pa);
      own += '/';
      number(own, pb);
    }
    own += "</title></path>\n";
  }
  // Hosts: a short line down to one summary box per switch.
  std::array<std::string, kLevels> host_lines;
  std::string hosts;
  const double drop = l.tiered ? kHostDrop : kSwitchSize + 6;
  for (const LayoutSwitch& s : l.switches) {
    if (s.hosts == 0) continue;
    const sa::SnapNode& sw = f.nodes[s.node];
    ErrorLevel level = ErrorLevel::kNone;
    std::vector<std::string> erring;
    for (const sa::SnapPort& p : sw.ports) {
      if (p.num == 0 || !p.peer.valid() || p.peer.node >= f.nodes.size()) continue;
      const sa::SnapNode& host = f.nodes[p.peer.node];
      if (host.is_switch()) continue;
      const ErrorLevel pl = worse(e.level(sw.guid(), p.num), e.level(host.guid(), p.peer.port));
      if (pl != ErrorLevel::kNone && erring.size() < kHostNamesInTitle)
        erring.push_back(node_name(host, names) + " port " + std::to_string(p.peer.port));
      level = worse(level, pl);
    }
    segment(host_lines[static_cast<std::size_t>(level)], s.x, s.y, s.x, s.y + drop);
    hosts += "<rect class=\"hosts ";
    hosts += error_level_class(level);
    hosts += "\" data-leaf=\"";
    markup::guid(hosts, sw.guid());
    hosts += "\" data-hosts=\"";
    number(hosts, s.hosts);
    hosts += '"';
    rect_attrs(hosts, s.x, s.y + drop, kSwitchSize, kSwitchSize * 0.8);
    hosts += "><title>";
    number(hosts, s.hosts);
    hosts += s.hosts == 1 ? " host on " : " hosts on ";
    escaped(hosts, node_name(sw, names));
    hosts += " (";
    number(hosts, s.hosts_active);
    hosts += " links Active)";
    if (!erring.empty()) {
      hosts += "; errors:";
      for (const auto& name : erring) {
        hosts += ' ';
        escaped(hosts, name);
      }
    }
    hosts += "</title></rect>\n";
  }
  for (std::size_t lv = 0; lv < kLevels; ++lv) {
    const std::string_view cls = error_level_class(static_cast<ErrorLevel>(lv));
    if (!merged[lv].empty()) {
      out += "<path class=\"link ";
      out += cls;
      out += "\" d=\"";
      out += merged[lv];
      out += "\"/>\n";
    }
    if (!host_lines[lv].empty()) {
      out += "<path class=\"hostlink ";
      out += cls;
      out += "\" d=\"";
      out += host_lines[lv];
      out += "\"/>\n";
    }
  }
  out += own;
  out += hosts;

  // Switches last, on top of their links.
  const bool labelled = l.switches.size() <= kLabelledSwitchesMax;
  for (const LayoutSwitch& s : l.switches) {
    const sa::SnapNode& sw = f.nodes[s.node];
    ErrorLevel level = ErrorLevel::kNone;
    for (const sa::SnapPort& p : sw.ports)
      level = worse(level, e.level(sw.guid(), p.num));
    const std::string name = node_name(sw, names);
    out += "<rect class=\"sw ";
    out += error_level_class(level);
    out += "\" data-guid=\"";
    markup::guid(out, sw.guid());
    out += '"';
    if (s.tier >= 0) {
      out += " data-tier=\"";
      number(out, static_cast<std::uint64_t>(s.tier));
      out += '"';
    }
    rect_attrs(out, s.x, s.y, kSwitchSize, kSwitchSize);
    out += "><title>";
    escaped(out, name);
    out += ' ';
    markup::guid(out, sw.guid());
    if (s.tier >= 0) {
      out += ", tier ";
      number(out, static_cast<std::uint64_t>(s.tier));
    }
    out += ", ";
    number(out, sw.info.num_ports);
    out += " ports, ";
    number(out, s.hosts);
    out += " hosts</title></rect>\n";
    if (labelled) {
      out += "<text x=\"";
      coord(out, s.x + kSwitchSize);
      out += "\" y=\"";
      coord(out, s.y - kSwitchSize / 2);
      out += "\">";
      escaped(out, name);
      out += "</text>\n";
    }
  }
  out += "</svg>\n";
  return out;
}

}  // namespace ibsm::metrics
