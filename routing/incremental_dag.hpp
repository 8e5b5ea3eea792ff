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
#include <utility>
#include <vector>

namespace ibsm::routing {

class IncrementalDag {
 public:
  explicit IncrementalDag(std::uint32_t nodes);
  // Starts from a topological order the caller expects most edges to agree with (a
  // permutation of 0..n-1, first to last): edges that do cost no search at all.
  explicit IncrementalDag(const std::vector<std::uint32_t>& order);

  std::uint32_t size() const { return static_cast<std::uint32_t>(node_.size()); }
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
  // While set, remove() keeps what can_add() remembered: it may then refuse an edge that
  // the removals made acceptable. For callers that use can_add() only to pick candidates
  // and add() to decide (nue's reroutes), which lose options, never correctness, and
  // save the searches that every removal would otherwise make them repeat.
  void keep_refusals(bool keep) { keep_refusals_ = keep; }
  bool has(std::uint32_t u, std::uint32_t v) const { return count_.find(key(u, v)) != nullptr; }
  std::size_t edges() const { return count_.size(); }

 private:
  static std::uint64_t key(std::uint32_t u, std::uint32_t v) { return std::uint64_t{u} << 32 | v; }

  // Edge -> count, open addressing with linear probing: the CDG of a large fabric holds
  // hundreds of thousands of edges and nue looks one up for almost every hop it routes,
  // where std::unordered_map's node chasing and prime modulo cost a third of the time.
  class Counts {
   public:
    Counts() { slots_.assign(16, Slot{}); }
    const std::uint32_t* find(std::uint64_t k) const;
    std::uint32_t* find(std::uint64_t k) {
      return const_cast<std::uint32_t*>(std::as_const(*this).find(k));
    }
    void insert(std::uint64_t k, std::uint32_t count);  // k absent
    void erase(std::uint64_t k);                        // k present
    std::size_t size() const { return size_; }

   private:
    static constexpr std::uint64_t kEmpty = UINT64_MAX;  // u = v = UINT32_MAX: no edge
    struct Slot {  // 12 bytes, not 16: the tables of an 8-layer fat tree are large
      std::uint32_t u = UINT32_MAX, v = UINT32_MAX, count = 0;
      std::uint64_t key() const { return std::uint64_t{u} << 32 | v; }
    };
    static Slot slot(std::uint64_t k, std::uint32_t count) {
      return {static_cast<std::uint32_t>(k >> 32), static_cast<std::uint32_t>(k), count};
    }
    std::size_t home(std::uint64_t k) const;
    void grow();
    std::vector<Slot> slots_;  // a power of two, at most half full
    std::size_t size_ = 0;
  };

  // The refused edges since the last remove(): a set emptied in O(1) by starting a new
  // generation (slots of older ones count as free), since nue's impasses empty it often.
  class Refused {
   public:
    Refused() { slots_.assign(16, Slot{}); }
    bool contains(std::uint64_t k) const;
    void insert(std::uint64_t k);  // k absent
    void clear();

   private:
    struct Slot {
      std::uint32_t u = 0, v = 0, gen = 0;
      std::uint64_t key() const { return std::uint64_t{u} << 32 | v; }
    };
    static Slot slot(std::uint64_t k, std::uint32_t gen) {
      return {static_cast<std::uint32_t>(k >> 32), static_cast<std::uint32_t>(k), gen};
    }
    std::size_t home(std::uint64_t k) const;
    std::vector<Slot> slots_;  // a power of two, at most half full of current ones
    std::size_t size_ = 0;
    std::uint32_t gen_ = 1;
  };

  // Per node: its position in the order and the search epoch that last visited it, side
  // by side because the searches read both for every edge they follow.
  struct Node {
    std::uint32_t ord = 0;
    std::uint32_t mark = 0;
  };
  // A bounded search from a node that ran out of budget: at least `budget` + 1 nodes are
  // reachable from it through nodes at positions up to `limit`. While the order stands
  // and no edge goes (`version`), any limit at least as high overflows too, so
  // can_add() answers "no" without searching (on a fat tree nue's candidate searches
  // from the same channel kept running out of budget, 90 M nodes visited in all).
  struct Overflow {
    std::uint32_t limit = UINT32_MAX;
    std::uint32_t budget = 0;
    std::uint32_t version = 0;
  };

  // Nodes reachable from v whose order is below `limit`; false if u is one of them.
  // With a budget, also false once more than `budget` nodes were visited (overflowed).
  bool forward(std::uint32_t v, std::uint32_t u, std::uint32_t limit,
               std::uint32_t budget = UINT32_MAX, bool* overflowed = nullptr);
  bool both_ways(std::uint32_t v, std::uint32_t u, std::uint32_t budget, bool* overflowed);
  void backward(std::uint32_t u, std::uint32_t limit);
  void reorder(std::uint32_t lower, std::uint32_t upper);
  void unmark();
  void changed();  // the order or the edges changed: Overflow records no longer hold

  std::vector<Node> node_;
  std::vector<std::uint32_t> at_;  // position -> node
  // Adjacency lists, all in one pool (a list that outgrows its room moves to the end):
  // the searches read a node's list header for every node they visit, and 12-byte
  // headers in one array stay in cache better than vectors' 24.
  struct List {
    std::uint32_t first = 0, size = 0, room = 0;
  };
  void push(List& list, std::uint32_t x);
  void drop(List& list, std::uint32_t x);
  const std::uint32_t* begin(const List& list) const { return pool_.data() + list.first; }
  const std::uint32_t* end(const List& list) const { return begin(list) + list.size; }
  std::vector<List> out_, in_;
  std::vector<std::uint32_t> pool_;
  std::vector<std::vector<std::uint32_t>> free_;  // by log2 of the room: rooms to reuse
  Counts count_;
  Refused refused_;  // can_add said no since the last remove
  std::vector<Overflow> overflow_;
  std::uint32_t version_ = 1;
  std::uint32_t epoch_ = 0;
  bool keep_refusals_ = false;
  std::vector<std::uint32_t> seen_f_, seen_b_, stack_, back_;
  std::vector<std::uint64_t> sort_;  // reorder(): position << 32 | node
  std::vector<std::uint32_t> slots_;
  std::vector<std::uint8_t> window_;  // reorder(): 1 for seen_b_, 2 for seen_f_ by position
};

}  // namespace ibsm::routing
