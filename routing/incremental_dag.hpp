// A directed graph kept acyclic while edges come and go: the channel dependency graph
// (CDG) of one virtual layer, grown path by path (lash) or hop by hop (nue).
//
// Adding an edge either keeps the graph acyclic (the edge is added) or would close a
// cycle (nothing changes). The check is Pearce and Kelly's dynamic topological order
// ("A dynamic topological sort algorithm for directed acyclic graphs", JEA 2006): the
// graph keeps a topological order, an edge that agrees with it costs nothing, and one
// that does not only searches the nodes between its two ends. Edges are counted, so
// the same dependency added by many paths is removed only with its last path; removing
// never invalidates the order.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ibsm::routing {

class IncrementalDag {
 public:
  explicit IncrementalDag(std::uint32_t nodes);
  // Starts from a topological order the caller expects most edges to agree with (a
  // permutation of 0..n-1, first to last): edges that do cost no search at all.
  explicit IncrementalDag(const std::vector<std::uint32_t>& order);

  std::uint32_t size() const { return static_cast<std::uint32_t>(ord_.size()); }
  // Adds u -> v (once more if present) unless it would close a cycle; false then.
  bool add(std::uint32_t u, std::uint32_t v);
  // Whether add(u, v) would succeed, without changing anything but search marks. With a
  // budget, a search that would visit more nodes than that answers false (unsure): for
  // callers that only look for candidates and check for real with add(). A "no" is
  // remembered until the next remove(): adding edges never makes a refused edge
  // acceptable, so asking again (a Dijkstra asks for every neighbour of every
  // destination) costs a lookup.
  bool can_add(std::uint32_t u, std::uint32_t v, std::uint32_t budget = UINT32_MAX);
  // Drops one count of u -> v (which must be present).
  void remove(std::uint32_t u, std::uint32_t v);
  bool has(std::uint32_t u, std::uint32_t v) const { return count_.contains(key(u, v)); }
  std::size_t edges() const { return count_.size(); }

 private:
  static std::uint64_t key(std::uint32_t u, std::uint32_t v) { return std::uint64_t{u} << 32 | v; }
  // Nodes reachable from v whose order is below `limit`; false if u is one of them.
  bool forward(std::uint32_t v, std::uint32_t u, std::uint32_t limit,
               std::uint32_t budget = UINT32_MAX);
  void backward(std::uint32_t u, std::uint32_t limit);
  void reorder();
  void unmark();

  std::vector<std::uint32_t> ord_;  // node -> position in the topological order
  std::vector<std::uint32_t> at_;   // position -> node
  std::vector<std::vector<std::uint32_t>> out_, in_;
  std::unordered_map<std::uint64_t, std::uint32_t> count_;
  std::unordered_set<std::uint64_t> refused_;  // can_add said no since the last remove
  std::vector<std::uint32_t> mark_;            // search epoch that visited a node
  std::uint32_t epoch_ = 0;
  std::vector<std::uint32_t> seen_f_, seen_b_, stack_;
};

}  // namespace ibsm::routing
