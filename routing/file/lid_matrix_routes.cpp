#include "routing/file/lid_matrix_routes.hpp"

#include <string>
#include <unordered_map>

#include "routing/errors.hpp"
#include "routing/file/dump_text.hpp"
#include "routing/hop_matrix.hpp"
#include "routing/lid_owners.hpp"
#include "routing/sentinels.hpp"

namespace ibsm::routing {
namespace {

using dump_text::hex_guid;

class MatrixRouter {
 public:
  MatrixRouter(const Topology& topo, std::string_view path, bool count_switch_lids)
      : topo_(topo), path_(path), count_switch_lids_(count_switch_lids) {
    n_ = static_cast<std::uint32_t>(topo.switches.size());
    rows_.assign(std::size_t{n_} * n_, nullptr);
    least_.assign(std::size_t{n_} * n_, kNoHops);
    peers_.resize(n_);
    for (std::uint32_t s = 0; s < n_; ++s) {
      const Switch& sw = topo.switches[s];
      peers_[s].assign(std::size_t{sw.num_ports} + 1, kNone);
      for (const Link& l : sw.links)
        if (l.kind == Link::Kind::kSwitch && l.port <= sw.num_ports) peers_[s][l.port] = l.peer;
    }
  }

  // Finds each switch's row for each destination switch; fails on missing switches.
  Status match(const LidMatrix& matrix) {
    std::unordered_map<std::uint64_t, const LidMatrixSwitch*> by_guid;
    for (const LidMatrixSwitch& b : matrix.switches)
      by_guid.emplace(b.guid, &b);
    std::unordered_map<Lid, std::uint32_t> switch_of_lid;
    for (std::uint32_t s = 0; s < n_; ++s)
      switch_of_lid.emplace(topo_.switches[s].lid, s);

    std::size_t matched = 0;
    for (std::uint32_t s = 0; s < n_; ++s) {
      const Switch& sw = topo_.switches[s];
      auto it = by_guid.find(sw.guid);
      if (it == by_guid.end()) {
        missing_ = missing_.empty() ? describe(s) : missing_;
        continue;
      }
      ++matched;
      for (const LidMatrixRow& row : it->second->rows) {
        auto d = switch_of_lid.find(row.lid);
        if (d == switch_of_lid.end()) {
          ++skipped_rows_;
          continue;
        }
        rows_[idx(s, d->second)] = &row;
      }
    }
    if (matched == 0 && n_ > 0)
      return mismatch(
          "no switch of the LID matrix is in this fabric (a matrix of another "
          "fabric?)");
    if (matched < n_)
      return mismatch(std::to_string(n_ - matched) +
                      " switch(es) of the fabric have no block in the matrix, first: " + missing_);
    skipped_switches_ = matrix.switches.size() - matched;
    return {};
  }

  // Checks every finite hop count against the links, and that hops reach every switch
  // the topology connects.
  Status validate() {
    for (std::uint32_t s = 0; s < n_; ++s)
      for (std::uint32_t d = 0; d < n_; ++d)
        if (auto st = check_ports(s, d); !st.ok()) return st;
    for (std::uint32_t s = 0; s < n_; ++s)
      for (std::uint32_t d = 0; d < n_; ++d)
        if (auto st = check_descent(s, d); !st.ok()) return st;
    auto hops = HopMatrix::compute(topo_);
    if (!hops.ok()) return fail(hops.error());
    for (std::uint32_t s = 0; s < n_; ++s)
      for (std::uint32_t d = 0; d < n_; ++d)
        if (hops->hops(s, d) != HopMatrix::kUnreachable && least_[idx(s, d)] == kNoHops)
          return mismatch("switch " + describe(s) + " has no hops to switch " + describe(d) +
                          " (LID " + std::to_string(topo_.switches[d].lid) + "), which it reaches");
    return {};
  }

  Routes route() {
    const std::vector<LidOwner> owners = lid_owners(topo_);
    Routes routes;
    routes.lfts.assign(n_, Lft(std::size_t{max_lid(topo_)} + 1, kNoPath));
    for (std::uint32_t s = 0; s < n_; ++s) {
      const std::vector<std::vector<PortNum>> minimal = minimal_ports(s);
      std::vector<std::uint32_t> use(std::size_t{topo_.switches[s].num_ports} + 1, 0);
      Lft& lft = routes.lfts[s];
      for (std::size_t lid = 1; lid < owners.size() && lid < lft.size(); ++lid) {
        const LidOwner& o = owners[lid];
        std::uint32_t d = kNone;
        PortNum local = 0;  // the port when the destination hangs off s itself
        if (o.kind == LidOwner::Kind::kSwitch) {
          d = o.index;
        } else if (o.kind == LidOwner::Kind::kEndPort) {
          d = topo_.end_ports[o.index].sw;
          local = topo_.end_ports[o.index].sw_port;
        }
        if (d == kNone) continue;
        if (d == s) {
          lft[lid] = local;
          continue;
        }
        lft[lid] =
            least_used(minimal[d], use, count_switch_lids_ || o.kind != LidOwner::Kind::kSwitch);
      }
    }
    if (skipped_switches_ > 0 || skipped_rows_ > 0)
      routes.warnings.push_back(
          {kErrLidMatrixSkipped,
           std::string(path_) + ": skipped " + std::to_string(skipped_switches_) +
               " block(s) of switches not in the fabric and " + std::to_string(skipped_rows_) +
               " row(s) for LIDs that are no switch's LID"});
    return routes;
  }

 private:
  std::size_t idx(std::uint32_t s, std::uint32_t d) const { return std::size_t{s} * n_ + d; }

  std::string describe(std::uint32_t s) const {
    return hex_guid(topo_.switches[s].guid) + " ('" + topo_.switches[s].description + "')";
  }

  Status mismatch(const std::string& what) const {
    return fail(kErrLidMatrixMismatch, std::string(path_) + ": " + what);
  }

  // The switch behind port p of s, kNone if the port leads to no switch.
  std::uint32_t peer_switch(std::uint32_t s, std::size_t p) const {
    const std::vector<std::uint32_t>& peers = peers_[s];
    return p < peers.size() ? peers[p] : kNone;
  }

  // Column 0 is not a path: OpenSM keeps each LID's least hop count there (osm_switch.h
  // osm_switch_set_hops), so it is ignored. A switch reaches itself at 0 hops, whatever
  // its row says.
  Status check_ports(std::uint32_t s, std::uint32_t d) {
    if (s == d) {
      least_[idx(s, d)] = 0;
      return {};
    }
    const LidMatrixRow* row = rows_[idx(s, d)];
    if (row == nullptr) return {};
    const Switch& sw = topo_.switches[s];
    std::uint8_t least = kNoHops;
    for (std::size_t p = 1; p < row->hops.size(); ++p) {
      const std::uint8_t h = row->hops[p];
      if (h == kNoHops) continue;
      auto where = [&] {
        return "switch " + describe(s) + " LID " + std::to_string(row->lid) + ": " +
               std::to_string(h) + " hops through port " + std::to_string(p);
      };
      if (p > sw.num_ports) return mismatch(where() + ", a port the switch does not have");
      if (h == 0 || peer_switch(s, p) == kNone)
        return mismatch(where() + ", which leads to no switch (down, or an end port)");
      if (h < least) least = h;
    }
    least_[idx(s, d)] = least;
    return {};
  }

  // A minimal port must lead to a switch strictly closer to d; that makes every path
  // shrink at each hop, so the routes cannot loop.
  Status check_descent(std::uint32_t s, std::uint32_t d) const {
    const LidMatrixRow* row = rows_[idx(s, d)];
    const std::uint8_t least = least_[idx(s, d)];
    if (row == nullptr || least == kNoHops || least == 0) return {};
    for (std::size_t p = 1; p < row->hops.size(); ++p) {
      if (row->hops[p] != least) continue;
      const std::uint32_t t = peer_switch(s, p);
      if (least_[idx(t, d)] >= least)
        return mismatch("switch " + describe(s) + " LID " + std::to_string(row->lid) + ": port " +
                        std::to_string(p) + " (" + std::to_string(least) +
                        " hops) leads to switch " + describe(t) + ", which is not closer");
    }
    return {};
  }

  std::vector<std::vector<PortNum>> minimal_ports(std::uint32_t s) const {
    std::vector<std::vector<PortNum>> out(n_);
    for (std::uint32_t d = 0; d < n_; ++d) {
      const LidMatrixRow* row = rows_[idx(s, d)];
      const std::uint8_t least = least_[idx(s, d)];
      if (row == nullptr || least == kNoHops) continue;
      for (std::size_t p = 1; p < row->hops.size(); ++p)
        if (row->hops[p] == least) out[d].push_back(static_cast<PortNum>(p));
    }
    return out;
  }

  // The candidate that carries the fewest LIDs so far, lowest port on ties.
  static PortNum least_used(const std::vector<PortNum>& candidates, std::vector<std::uint32_t>& use,
                            bool count) {
    if (candidates.empty()) return kNoPath;
    PortNum best = candidates.front();
    for (PortNum p : candidates)
      if (use[p] < use[best]) best = p;
    if (count) ++use[best];
    return best;
  }

  const Topology& topo_;
  std::string_view path_;
  bool count_switch_lids_ = false;
  std::uint32_t n_ = 0;
  std::vector<const LidMatrixRow*> rows_;          // [s * n + d]: s's row for d's LID
  std::vector<std::uint8_t> least_;                // [s * n + d]: least hops in that row
  std::vector<std::vector<std::uint32_t>> peers_;  // [s][port]: switch behind it or kNone
  std::string missing_;
  std::size_t skipped_switches_ = 0;
  std::size_t skipped_rows_ = 0;
};

}  // namespace

Result<Routes> routes_from_lid_matrix(const Topology& topo, const LidMatrix& matrix,
                                      std::string_view path, bool count_switch_lids) {
  MatrixRouter router(topo, path, count_switch_lids);
  if (auto st = router.match(matrix); !st.ok()) return fail(st.error());
  if (auto st = router.validate(); !st.ok()) return fail(st.error());
  return router.route();
}

}  // namespace ibsm::routing
