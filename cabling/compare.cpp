#include "cabling/compare.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include <spdlog/fmt/fmt.h>

#include "cabling/fabric_index.hpp"
#include "common/text.hpp"

namespace ibsm::cabling {
namespace {

constexpr std::int32_t kNone = -1;

// A port of a found node, as one number: node index << 8 | port.
using EndKey = std::uint64_t;
EndKey end_key(std::uint32_t node, std::uint8_t port) {
  return (static_cast<std::uint64_t>(node) << 8) | port;
}
std::uint32_t node(EndKey k) {
  return static_cast<std::uint32_t>(k >> 8);
}
LinkEnd end_of(EndKey k) {
  return {static_cast<std::uint32_t>(k >> 8), static_cast<std::uint8_t>(k & 0xff)};
}

struct Cable {
  EndKey a = 0, b = 0;
  std::uint8_t width = 0;
  Speed speed = Speed::kUnknown;
  bool matched = false;
  EndKey other(EndKey k) const { return k == a ? b : a; }
  bool joins(EndKey x, EndKey y) const { return (a == x && b == y) || (a == y && b == x); }
};

class Comparison {
 public:
  Comparison(const IntendedTopology& t, const DiscoveredFabric& f, const CompareOptions& o)
      : topo_(t), fx_(f), opt_(o) {}

  std::vector<Deviation> run() {
    match_nodes();
    node_deviations();
    collect_cables();
    match_exact();
    match_wrong_port();
    match_wrong_node();
    for (const auto& e : expected_)
      if (!e.matched) add_link(DeviationKind::kMissingLink, e.a, e.b);
    for (const auto& f : found_)
      if (!f.matched) add_link(DeviationKind::kExtraLink, f.a, f.b);
    sort_deviations(out_);
    return std::move(out_);
  }

 private:
  std::optional<std::uint32_t> resolve(const IntendedNode& n) const {
    if (n.guid != 0) {
      if (auto d = fx_.node_of(n.guid)) return d;
      return fx_.node_of_port_guid(n.guid);
    }
    const auto it = by_name_.find(n.name);
    if (it == by_name_.end() || it->second == kNone) return std::nullopt;
    return static_cast<std::uint32_t>(it->second);
  }

  void match_nodes() {
    const auto& nodes = fx_.fabric().nodes;
    bool by_name = false;
    for (const auto& n : topo_.nodes)
      by_name |= n.guid == 0;
    if (by_name)
      for (std::uint32_t i = 0; i < nodes.size(); ++i) {
        auto [it, fresh] = by_name_.try_emplace(nodes[i].name, static_cast<std::int32_t>(i));
        if (!fresh) it->second = kNone;  // a name two nodes have matches neither
      }
    found_of_.assign(topo_.nodes.size(), kNone);
    intended_of_.assign(nodes.size(), kNone);
    for (std::uint32_t i = 0; i < topo_.nodes.size(); ++i) {
      const auto d = resolve(topo_.nodes[i]);
      if (!d) continue;
      found_of_[i] = static_cast<std::int32_t>(*d);
      if (intended_of_[*d] == kNone) intended_of_[*d] = static_cast<std::int32_t>(i);
    }
  }

  void node_deviations() {
    // A missing node's first neighbour in the file: where to look for it.
    std::vector<std::optional<IntendedEnd>> first(topo_.nodes.size());
    std::vector<IntendedEnd> first_peer(topo_.nodes.size());
    const auto note = [&](IntendedEnd self, IntendedEnd peer) {
      if (found_of_[self.node] != kNone) return;
      if (!first[self.node] || self.port < first[self.node]->port) {
        first[self.node] = self;
        first_peer[self.node] = peer;
      }
    };
    for (const auto& l : topo_.links) {
      note(l.a, l.b);
      note(l.b, l.a);
    }
    for (std::uint32_t i = 0; i < topo_.nodes.size(); ++i) {
      if (found_of_[i] != kNone) continue;
      const IntendedNode& n = topo_.nodes[i];
      DeviationEnd remote;
      if (first[i]) {
        const IntendedEnd peer = first_peer[i];
        const std::int32_t d = found_of_[peer.node];
        remote = d != kNone ? deviation_end(fx_, {static_cast<std::uint32_t>(d), peer.port})
                            : DeviationEnd{topo_.nodes[peer.node].guid, peer.port,
                                           topo_.nodes[peer.node].name};
      }
      out_.push_back({DeviationKind::kMissingNode,
                      {n.guid, 0, n.name},
                      std::move(remote),
                      std::string(node_type_name(n.type)),
                      "no node"});
    }
    const auto& nodes = fx_.fabric().nodes;
    for (std::uint32_t d = 0; d < nodes.size(); ++d) {
      if (intended_of_[d] != kNone) continue;
      const DiscoveredPort* first_port = nullptr;
      for (const auto& p : nodes[d].ports)
        if (p.peer_guid != 0 && (!first_port || p.num < first_port->num)) first_port = &p;
      DeviationEnd remote;
      if (first_port) {
        const auto peer = fx_.node_of(first_port->peer_guid);
        remote = peer ? deviation_end(fx_, {*peer, first_port->peer_port})
                      : DeviationEnd{first_port->peer_guid, first_port->peer_port, ""};
      }
      out_.push_back({DeviationKind::kExtraNode,
                      {nodes[d].guid, 0, nodes[d].name},
                      std::move(remote),
                      "no node",
                      std::string(node_type_name(nodes[d].type))});
    }
  }

  void collect_cables() {
    expected_.reserve(topo_.links.size());
    std::vector<const IntendedLink*> known;
    for (const auto& l : topo_.links) {
      if (l.state != LinkState::kActive) {
        known.push_back(&l);
        continue;
      }
      const std::int32_t a = found_of_[l.a.node], b = found_of_[l.b.node];
      if (a == kNone || b == kNone) continue;  // told as missing_node
      const EndKey ka = end_key(static_cast<std::uint32_t>(a), l.a.port);
      const EndKey kb = end_key(static_cast<std::uint32_t>(b), l.b.port);
      if (ka == kb) continue;
      expected_.push_back({ka, kb, l.width, l.speed});
    }
    // Cables the file marks as not to be used (topoconfig NO_DISCOVER, DISABLED): their
    // ports are taken, so a cable found there is not extra.
    std::unordered_set<EndKey> known_ends;
    for (const IntendedLink* k : known) {
      const IntendedLink& l = *k;
      const std::int32_t a = found_of_[l.a.node], b = found_of_[l.b.node];
      if (a == kNone || b == kNone) continue;
      known_ends.insert(end_key(static_cast<std::uint32_t>(a), l.a.port));
      known_ends.insert(end_key(static_cast<std::uint32_t>(b), l.b.port));
    }
    fx_.for_each_link([&](std::uint32_t a, std::uint8_t pa, std::uint32_t b, std::uint8_t pb) {
      if (intended_of_[a] == kNone || intended_of_[b] == kNone) return;  // told as extra_node
      const EndKey ka = end_key(a, pa), kb = end_key(b, pb);
      if (known_ends.contains(ka) && known_ends.contains(kb)) return;
      found_.push_back({ka, kb});
    });
    // In GUID/port order, so that the pairing below does not depend on the order the
    // fabric lists its nodes and ports in.
    const auto& nodes = fx_.fabric().nodes;
    const auto order = [&](EndKey k) { return std::pair(nodes[node(k)].guid, k & 0xff); };
    std::sort(found_.begin(), found_.end(),
              [&](const Cable& x, const Cable& y) { return order(x.a) < order(y.a); });
    found_at_.reserve(2 * found_.size());
    for (std::uint32_t i = 0; i < found_.size(); ++i) {
      found_at_.try_emplace(found_[i].a, i);
      found_at_.try_emplace(found_[i].b, i);
    }
  }

  Cable* found_at(EndKey k) {
    const auto it = found_at_.find(k);
    if (it == found_at_.end() || found_[it->second].matched) return nullptr;
    return &found_[it->second];
  }

  void match_exact() {
    for (auto& e : expected_) {
      Cable* f = found_at(e.a);
      if (f == nullptr || !f->joins(e.a, e.b)) continue;
      e.matched = f->matched = true;
      if (opt_.check_rates)
        check_link_rate(fx_, end_of(e.a), end_of(e.b), e.width, e.speed, opt_.rate_reference, out_,
                        opt_.best_when_unstated);
    }
  }

  void match_wrong_port() {
    for (auto& e : expected_) {
      if (e.matched) continue;
      for (const EndKey shared : {e.a, e.b}) {
        Cable* f = found_at(shared);
        if (f == nullptr) continue;
        const EndKey want = e.other(shared), now = f->other(shared);
        if (node(now) != node(want)) continue;
        e.matched = f->matched = true;
        add(DeviationKind::kWrongPort, now, shared, describe(want), describe(now));
        break;
      }
    }
    // Both ends in other ports of the right two nodes.
    std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> by_pair;
    const auto pair_key = [](EndKey a, EndKey b) {
      const auto x = node(a), y = node(b);
      return x < y ? (std::uint64_t{x} << 32) | y : (std::uint64_t{y} << 32) | x;
    };
    for (std::uint32_t i = 0; i < found_.size(); ++i)
      if (!found_[i].matched) by_pair[pair_key(found_[i].a, found_[i].b)].push_back(i);
    if (by_pair.empty()) return;
    for (auto& e : expected_) {
      if (e.matched) continue;
      const auto it = by_pair.find(pair_key(e.a, e.b));
      if (it == by_pair.end()) continue;
      for (const auto i : it->second) {
        Cable& f = found_[i];
        if (f.matched) continue;
        e.matched = f.matched = true;
        // Oriented as the file's cable: the end on e.a's node first.
        const bool same = node(f.a) == node(e.a);
        const EndKey fa = same ? f.a : f.b, fb = same ? f.b : f.a;
        add(DeviationKind::kWrongPort, fa, fb, describe(e.a) + " - " + describe(e.b),
            describe(fa) + " - " + describe(fb));
        break;
      }
    }
  }

  void match_wrong_node() {
    for (auto& e : expected_) {
      if (e.matched) continue;
      for (const EndKey shared : {e.a, e.b}) {
        Cable* f = found_at(shared);
        if (f == nullptr) continue;
        e.matched = f->matched = true;
        add(DeviationKind::kWrongNode, shared, f->other(shared), describe(e.other(shared)),
            describe(f->other(shared)));
        break;
      }
    }
  }

  std::string describe(EndKey k) const {
    const auto e = end_of(k);
    const auto& n = fx_.fabric().nodes[e.node];
    return fmt::format("\"{}\"[{}]", n.name.empty() ? hex_guid(n.guid) : n.name, e.port);
  }

  void add(DeviationKind kind, EndKey local, EndKey remote, std::string expected,
           std::string found) {
    out_.push_back({kind, deviation_end(fx_, end_of(local)), deviation_end(fx_, end_of(remote)),
                    std::move(expected), std::move(found)});
  }

  // missing_link and extra_link: the lower GUID/port end is local; the text names the
  // other end.
  void add_link(DeviationKind kind, EndKey a, EndKey b) {
    const auto ga = deviation_end(fx_, end_of(a)), gb = deviation_end(fx_, end_of(b));
    if (std::pair(gb.guid, gb.port) < std::pair(ga.guid, ga.port)) std::swap(a, b);
    const bool missing = kind == DeviationKind::kMissingLink;
    add(kind, a, b, missing ? describe(b) : "no link", missing ? "no link" : describe(b));
  }

  const IntendedTopology& topo_;
  const FabricIndex fx_;
  const CompareOptions& opt_;
  std::unordered_map<std::string, std::int32_t> by_name_;
  std::vector<std::int32_t> found_of_;     // intended node -> found node, or kNone
  std::vector<std::int32_t> intended_of_;  // found node -> intended node, or kNone
  std::vector<Cable> expected_, found_;
  std::unordered_map<EndKey, std::uint32_t> found_at_;
  std::vector<Deviation> out_;
};

}  // namespace

std::vector<Deviation> compare_topology(const IntendedTopology& intended,
                                        const DiscoveredFabric& fabric,
                                        const CompareOptions& options) {
  return Comparison(intended, fabric, options).run();
}

}  // namespace ibsm::cabling
