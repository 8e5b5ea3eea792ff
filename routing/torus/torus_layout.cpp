#include "routing/torus/torus_layout.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <unordered_map>

#include "common/text.hpp"
#include "routing/errors.hpp"

namespace ibsm::routing::torus {
namespace {

std::string coord_text(const Coord& c) {
  return "(" + std::to_string(c[0]) + "," + std::to_string(c[1]) + "," + std::to_string(c[2]) + ")";
}

int canonical(int v, unsigned r) {
  const int m = static_cast<int>(r);
  return ((v % m) + m) % m;
}

// The grid being filled, with the switch graph it is filled from.
class Placer {
 public:
  Placer(const Topology& topo, const TorusConfig& cfg) : topo_(topo), cfg_(cfg) {
    const std::size_t n = topo.switches.size();
    nbrs_.resize(n);
    for (std::uint32_t s = 0; s < n; ++s) {
      for (const Link& l : topo.switches[s].links)
        if (l.kind == Link::Kind::kSwitch && l.peer != s) nbrs_[s].push_back(l.peer);
      std::sort(nbrs_[s].begin(), nbrs_[s].end());
      nbrs_[s].erase(std::unique(nbrs_[s].begin(), nbrs_[s].end()), nbrs_[s].end());
    }
    cells_ = std::size_t{cfg.radix[0]} * cfg.radix[1] * cfg.radix[2];
  }

  void reset() {
    grid_.assign(cells_, kNoSwitch);
    coord_.assign(topo_.switches.size(), std::nullopt);
  }

  bool adjacent(std::uint32_t a, std::uint32_t b) const {
    return std::binary_search(nbrs_[a].begin(), nbrs_[a].end(), b);
  }

  // c moved by `step` in dimension d; nullopt when it leaves a mesh.
  std::optional<Coord> moved(const Coord& c, unsigned d, int step) const {
    Coord r = c;
    const int v = c[d] + step;
    if (cfg_.wraps[d]) {
      r[d] = canonical(v, cfg_.radix[d]);
    } else {
      if (v < 0 || v >= static_cast<int>(cfg_.radix[d])) return std::nullopt;
      r[d] = v;
    }
    return r;
  }

  // The direction group leading from a to b when they are grid neighbours.
  std::optional<std::uint8_t> direction(const Coord& a, const Coord& b) const {
    std::optional<std::uint8_t> dir;
    for (unsigned d = 0; d < kDims; ++d) {
      if (a[d] == b[d]) continue;
      if (dir) return std::nullopt;  // differs in two dimensions
      const unsigned r = cfg_.radix[d];
      const int diff = b[d] - a[d];
      if (diff == 1 || (cfg_.wraps[d] && canonical(diff, r) == 1))
        dir = dir_group(d, true);
      else if (diff == -1 || (cfg_.wraps[d] && canonical(diff, r) == static_cast<int>(r) - 1))
        dir = dir_group(d, false);
      else
        return std::nullopt;
    }
    return dir;
  }

  std::size_t index(const Coord& c) const {
    return (std::size_t(c[0]) * cfg_.radix[1] + std::size_t(c[1])) * cfg_.radix[2] +
           std::size_t(c[2]);
  }
  std::uint32_t at(const Coord& c) const { return grid_[index(c)]; }
  bool placed(std::uint32_t s) const { return coord_[s].has_value(); }

  // Puts s at c unless that contradicts what is placed: the cell is taken, s is placed
  // elsewhere, or a placed neighbour of s is not at a neighbouring coordinate.
  bool place(std::uint32_t s, const Coord& c) {
    if (at(c) != kNoSwitch || placed(s)) return false;
    for (std::uint32_t q : nbrs_[s])
      if (coord_[q] && !direction(c, *coord_[q])) return false;
    grid_[index(c)] = s;
    coord_[s] = c;
    return true;
  }

  // The only unplaced switch adjacent to both a and b (other than `except`), if unique.
  std::uint32_t unique_common(std::uint32_t a, std::uint32_t b, std::uint32_t except) const {
    std::uint32_t found = kNoSwitch;
    for (std::uint32_t q : nbrs_[a]) {
      if (q == except || placed(q) || !adjacent(b, q)) continue;
      if (found != kNoSwitch) return kNoSwitch;
      found = q;
    }
    return found;
  }

  std::size_t common_count(std::uint32_t a, std::uint32_t b) const {
    std::size_t n = 0;
    for (std::uint32_t q : nbrs_[a])
      n += adjacent(b, q) ? 1 : 0;
    return n;
  }

  // Squares: a at c, b at c+σd, t at c+τe placed, c+σd+τe empty -> the unique other
  // common neighbour of b and t goes there (a 4-loop of links is a face of the grid).
  bool square_pass() {
    bool changed = false;
    for (std::size_t i = 0; i < cells_; ++i) {
      const std::uint32_t a = grid_[i];
      if (a == kNoSwitch) continue;
      const Coord c = *coord_[a];
      for (unsigned d = 0; d < kDims; ++d) {
        if (cfg_.radix[d] < 2) continue;
        for (int sd : {1, -1}) {
          const auto cb = moved(c, d, sd);
          if (!cb || at(*cb) == kNoSwitch) continue;
          for (unsigned e = 0; e < kDims; ++e) {
            if (e == d || cfg_.radix[e] < 2) continue;
            for (int se : {1, -1}) {
              const auto ct = moved(c, e, se);
              if (!ct || at(*ct) == kNoSwitch) continue;
              const auto cw = moved(*cb, e, se);
              if (!cw || at(*cw) != kNoSwitch) continue;
              const std::uint32_t w = unique_common(at(*cb), at(*ct), a);
              if (w != kNoSwitch && place(w, *cw)) changed = true;
            }
          }
        }
      }
    }
    return changed;
  }

  // Straight runs: a at c, b at c+σd placed, c+2σd empty -> the neighbour of b that
  // continues the line. Which one that is depends on the ring's radix: on a 3-ring it is
  // a's other neighbour, on a 4-ring the common neighbour of b and c-σd (both seed links
  // are needed, torus-2QoS.conf(5)), otherwise the neighbour of b that shares no other
  // neighbour with a.
  bool line_pass() {
    for (std::size_t i = 0; i < cells_; ++i) {
      const std::uint32_t a = grid_[i];
      if (a == kNoSwitch) continue;
      const Coord c = *coord_[a];
      for (unsigned d = 0; d < kDims; ++d) {
        const unsigned r = cfg_.radix[d];
        if (r < 3) continue;
        for (int sd : {1, -1}) {
          const auto cb = moved(c, d, sd);
          if (!cb || at(*cb) == kNoSwitch) continue;
          const auto cw = moved(*cb, d, sd);
          if (!cw || at(*cw) != kNoSwitch) continue;
          const std::uint32_t b = at(*cb);
          std::uint32_t w = kNoSwitch;
          if (cfg_.wraps[d] && r == 3) {
            w = unique_common(a, b, kNoSwitch);
          } else if (cfg_.wraps[d] && r == 4) {
            const auto cp = moved(c, d, -sd);
            if (cp && at(*cp) != kNoSwitch) w = unique_common(b, at(*cp), a);
          } else {
            for (std::uint32_t q : nbrs_[b]) {
              if (q == a || placed(q) || adjacent(a, q) || common_count(a, q) != 1) continue;
              if (w != kNoSwitch) {
                w = kNoSwitch;
                break;
              }
              w = q;
            }
          }
          if (w != kNoSwitch && place(w, *cw)) return true;
        }
      }
    }
    return false;
  }

  const std::vector<std::vector<std::uint32_t>>& nbrs() const { return nbrs_; }
  const std::vector<std::optional<Coord>>& coords() const { return coord_; }
  const std::vector<std::uint32_t>& grid() const { return grid_; }

 private:
  const Topology& topo_;
  const TorusConfig& cfg_;
  std::vector<std::vector<std::uint32_t>> nbrs_;  // distinct neighbour switches, sorted
  std::size_t cells_ = 0;
  std::vector<std::uint32_t> grid_;
  std::vector<std::optional<Coord>> coord_;
};

// Places a seed's switches: `from` at the origin moved by the datelines, its configured
// neighbours one step away. Empty string on success, else why the seed is unusable.
std::string place_seed(Placer& p, const TorusSeed& seed, const TorusConfig& cfg,
                       const std::unordered_map<std::uint64_t, std::uint32_t>& by_guid) {
  const auto find = [&](std::uint64_t g) {
    const auto it = by_guid.find(g);
    return it == by_guid.end() ? kNoSwitch : it->second;
  };
  const std::uint32_t from = find(seed.from);
  if (from == kNoSwitch) return "switch " + hex_guid(seed.from) + " is not in the fabric";
  Coord origin{};
  for (unsigned d = 0; d < kDims; ++d)
    origin[d] = cfg.radix[d] > 1 ? canonical(-seed.dateline[d], cfg.radix[d]) : 0;
  if (!p.place(from, origin)) return "cannot place " + hex_guid(seed.from);
  for (unsigned d = 0; d < kDims; ++d)
    for (int side = 0; side < 2; ++side) {
      const std::uint64_t g = seed.neighbour[d][side];
      if (g == 0) continue;
      const std::uint32_t s = find(g);
      if (s == kNoSwitch) return "switch " + hex_guid(g) + " is not in the fabric";
      if (!p.adjacent(from, s))
        return hex_guid(seed.from) + " and " + hex_guid(g) + " are not cabled";
      const auto c = p.moved(origin, d, side == 1 ? 1 : -1);
      if (!c) return "the dateline puts " + hex_guid(g) + " outside the mesh";
      if (p.at(*c) == s) continue;  // radix 2/3: + and - may be the same place
      if (!p.place(s, *c))
        return "the seed links of " + hex_guid(seed.from) + " contradict each other";
    }
  return {};
}

}  // namespace

Result<TorusLayout> place_switches(const Topology& topo, const TorusConfig& cfg,
                                   const std::string& file_name) {
  std::unordered_map<std::uint64_t, std::uint32_t> by_guid;
  for (std::uint32_t s = 0; s < topo.switches.size(); ++s)
    by_guid.emplace(topo.switches[s].guid, s);
  const std::size_t cells = std::size_t{cfg.radix[0]} * cfg.radix[1] * cfg.radix[2];
  if (topo.switches.size() > cells)
    return fail(kErrTorusMismatch, "the fabric has " + std::to_string(topo.switches.size()) +
                                       " switches, more than the " + std::to_string(cells) +
                                       " coordinates of " + file_name);

  Placer p(topo, cfg);
  std::string why;
  unsigned used = 0;
  bool seeded = false;
  for (; used < cfg.seeds.size(); ++used) {
    p.reset();
    why = place_seed(p, cfg.seeds[used], cfg, by_guid);
    if (why.empty()) {
      seeded = true;
      break;
    }
  }
  if (!seeded)
    return fail(kErrTorusSeedUnusable, file_name + ":" + std::to_string(cfg.seeds.back().line) +
                                           ": no usable seed: " + why);
  // Squares first (they are unambiguous); a straight step only when squares stall.
  for (;;) {
    while (p.square_pass()) {
    }
    if (!p.line_pass()) break;
  }

  TorusLayout out;
  out.radix = cfg.radix;
  out.wraps = cfg.wraps;
  out.seed = used;
  out.grid = p.grid();
  const std::size_t n = topo.switches.size();
  out.coord.resize(n);
  out.groups.resize(n);
  out.port_dir.resize(n);
  for (std::uint32_t s = 0; s < n; ++s) {
    const Switch& sw = topo.switches[s];
    if (!p.coords()[s])
      return fail(kErrTorusMismatch, "switch " + hex_guid(sw.guid) + " (" + sw.description +
                                         ") fits no coordinate of the " + file_name + " torus");
    out.coord[s] = *p.coords()[s];
  }
  for (std::uint32_t s = 0; s < n; ++s) {
    const Switch& sw = topo.switches[s];
    out.port_dir[s].assign(std::size_t{sw.num_ports} + 1, kNoDir);
    for (const Link& l : sw.links) {
      if (l.kind != Link::Kind::kSwitch) continue;
      const auto dir = p.direction(out.coord[s], out.coord[l.peer]);
      if (!dir || l.peer == s)
        return fail(kErrTorusMismatch,
                    "link " + hex_guid(sw.guid) + "/" + std::to_string(l.port) + " " +
                        coord_text(out.coord[s]) + " -> " + hex_guid(topo.switches[l.peer].guid) +
                        " " + coord_text(out.coord[l.peer]) + " joins no torus neighbours");
      out.port_dir[s][l.port] = *dir;
      out.groups[s][*dir].push_back(l.port);
    }
    for (auto& g : out.groups[s])
      std::sort(g.begin(), g.end());
  }
  // A 1D ring broken in two places (or a mesh line broken once) splits into pieces that
  // cannot reach each other without leaving the ring; OpenSM refuses those fabrics.
  for (unsigned d = 0; d < kDims; ++d) {
    const unsigned r = cfg.radix[d];
    if (r < 2) continue;
    for (std::size_t i = 0; i < cells; ++i) {
      Coord base{int(i / (std::size_t{cfg.radix[1]} * cfg.radix[2])),
                 int((i / cfg.radix[2]) % cfg.radix[1]), int(i % cfg.radix[2])};
      if (base[d] != 0) continue;  // one visit per line
      unsigned pieces = 0;
      for (unsigned k = 0; k < r; ++k) {
        Coord c = base;
        c[d] = static_cast<int>(k);
        const std::uint32_t s = out.at(c);
        if (s == kNoSwitch) continue;
        const bool has_prev = k > 0 || cfg.wraps[d];
        bool linked = false;
        if (has_prev) {
          Coord prev = c;
          prev[d] = canonical(static_cast<int>(k) - 1, r);
          const std::uint32_t q = out.at(prev);
          linked = q != kNoSwitch && !out.groups[q][dir_group(d, true)].empty() &&
                   !out.groups[s][dir_group(d, false)].empty() && p.adjacent(q, s);
        }
        if (!linked) ++pieces;
      }
      if (pieces > 1)
        return fail(kErrTorusDisjointRing, std::string("the ") + "xyz"[d] + " ring through " +
                                               coord_text(base) + " is broken into " +
                                               std::to_string(pieces) + " pieces");
    }
  }
  return out;
}

}  // namespace ibsm::routing::torus
