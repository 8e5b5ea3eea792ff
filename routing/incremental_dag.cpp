#include "routing/incremental_dag.hpp"

#include <algorithm>
#include <bit>
#include <numeric>

namespace ibsm::routing {
namespace {

// Fibonacci hashing of the mixed key: edges u -> v of one node differ in the low half.
std::size_t hash_slot(std::uint64_t k, std::size_t mask) {
  k ^= k >> 29;
  return static_cast<std::size_t>((k * 0x9E3779B97F4A7C15ULL) >> 32) & mask;
}

}  // namespace

std::size_t IncrementalDag::Counts::home(std::uint64_t k) const {
  return hash_slot(k, slots_.size() - 1);
}

const std::uint32_t* IncrementalDag::Counts::find(std::uint64_t k) const {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = home(k);; i = (i + 1) & mask) {
    if (slots_[i].key() == k) return &slots_[i].count;
    if (slots_[i].key() == kEmpty) return nullptr;
  }
}

void IncrementalDag::Counts::insert(std::uint64_t k, std::uint32_t count) {
  if (2 * (size_ + 1) > slots_.size()) grow();
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = home(k);
  while (slots_[i].key() != kEmpty)
    i = (i + 1) & mask;
  slots_[i] = slot(k, count);
  ++size_;
}

void IncrementalDag::Counts::grow() {
  std::vector<Slot> old(slots_.size() * 2);
  old.swap(slots_);
  size_ = 0;
  for (const Slot& s : old)
    if (s.key() != kEmpty) insert(s.key(), s.count);
}

// Backward-shift deletion: later slots of the run move up where their home allows, so
// lookups never need tombstones.
void IncrementalDag::Counts::erase(std::uint64_t k) {
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = home(k);
  while (slots_[i].key() != k)
    i = (i + 1) & mask;
  for (std::size_t j = (i + 1) & mask; slots_[j].key() != kEmpty; j = (j + 1) & mask) {
    const std::size_t h = home(slots_[j].key());
    // slots_[j] may fill the hole at i unless its home lies cyclically in (i, j].
    if (((j - h) & mask) >= ((j - i) & mask)) {
      slots_[i] = slots_[j];
      i = j;
    }
  }
  slots_[i] = Slot{};
  --size_;
}

std::size_t IncrementalDag::Refused::home(std::uint64_t k) const {
  return hash_slot(k, slots_.size() - 1);
}

bool IncrementalDag::Refused::contains(std::uint64_t k) const {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = home(k);; i = (i + 1) & mask) {
    if (slots_[i].gen != gen_) return false;
    if (slots_[i].key() == k) return true;
  }
}

void IncrementalDag::Refused::insert(std::uint64_t k) {
  if (2 * (size_ + 1) > slots_.size()) {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    for (const Slot& s : old)
      if (s.gen == gen_) {
        std::size_t i = home(s.key());
        while (slots_[i].gen == gen_)
          i = (i + 1) & (slots_.size() - 1);
        slots_[i] = s;
      }
  }
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = home(k);
  while (slots_[i].gen == gen_)
    i = (i + 1) & mask;
  slots_[i] = slot(k, gen_);
  ++size_;
}

void IncrementalDag::Refused::clear() {
  size_ = 0;
  if (++gen_ == 0) {  // wrapped: old slots could look current
    std::fill(slots_.begin(), slots_.end(), Slot{});
    gen_ = 1;
  }
}

// Rooms are powers of two from 4; a room left behind is kept for the next list of that
// size (without that a fat tree's 8 layers took 40 MB more than separate vectors).
void IncrementalDag::push(List& list, std::uint32_t x) {
  if (list.size == list.room) {
    const std::uint32_t room = std::max<std::uint32_t>(4, 2 * list.room);
    const auto size_class = static_cast<std::size_t>(std::countr_zero(room));
    if (free_.size() <= size_class) free_.resize(size_class + 1);
    std::uint32_t first;
    if (!free_[size_class].empty()) {
      first = free_[size_class].back();
      free_[size_class].pop_back();
    } else {
      first = static_cast<std::uint32_t>(pool_.size());
      pool_.resize(pool_.size() + room);
    }
    std::copy_n(pool_.begin() + list.first, list.size, pool_.begin() + first);
    if (list.room > 0)
      free_[static_cast<std::size_t>(std::countr_zero(list.room))].push_back(list.first);
    list.first = first;
    list.room = room;
  }
  pool_[list.first + list.size++] = x;
}

void IncrementalDag::drop(List& list, std::uint32_t x) {
  const auto b = pool_.begin() + list.first, e = b + list.size;
  const auto p = std::find(b, e, x);
  if (p == e) return;
  *p = *(e - 1);
  --list.size;
}

IncrementalDag::IncrementalDag(std::uint32_t nodes)
    : node_(nodes), at_(nodes), out_(nodes), in_(nodes), overflow_(nodes) {
  for (std::uint32_t i = 0; i < nodes; ++i)
    node_[i].ord = i;
  std::iota(at_.begin(), at_.end(), 0u);
}

IncrementalDag::IncrementalDag(const std::vector<std::uint32_t>& order)
    : IncrementalDag(static_cast<std::uint32_t>(order.size())) {
  for (std::uint32_t i = 0; i < order.size(); ++i) {
    at_[i] = order[i];
    node_[order[i]].ord = i;
  }
}

void IncrementalDag::unmark() {
  if (++epoch_ == 0) {  // wrapped: old marks could look current
    for (Node& n : node_)
      n.mark = 0;
    epoch_ = 1;
  }
}

void IncrementalDag::changed() {
  if (++version_ == 0) {  // wrapped: old records could look current
    std::fill(overflow_.begin(), overflow_.end(), Overflow{});
    version_ = 1;
  }
}

// Depth first: a search that closes a cycle meets u sooner than breadth first (a
// torus's refused turns: 30 % fewer nodes).
bool IncrementalDag::forward(std::uint32_t v, std::uint32_t u, std::uint32_t limit,
                             std::uint32_t budget, bool* overflowed) {
  unmark();
  seen_f_.clear();
  stack_.assign(1, v);
  node_[v].mark = epoch_;
  while (!stack_.empty()) {
    const std::uint32_t w = stack_.back();
    stack_.pop_back();
    seen_f_.push_back(w);
    if (seen_f_.size() > budget) {
      if (overflowed) *overflowed = true;
      return false;
    }
    const List& list = out_[w];
    for (const std::uint32_t* p = begin(list); p != end(list); ++p) {
      const std::uint32_t x = *p;
      if (x == u) return false;
      Node& n = node_[x];
      if (n.mark == epoch_ || n.ord > limit) continue;
      n.mark = epoch_;
      stack_.push_back(x);
    }
  }
  return true;
}

// forward(v, u, ord(u), budget)'s answer, searching from u backwards at the same time:
// whichever side runs out first settles a "yes", and a cycle shows where they meet.
// The answer is forward's: "no" iff u is reachable from v inside the window or v
// reaches more than `budget` nodes there; when the backward side runs out first the
// second still needs the forward count, unless the window itself is that small.
bool IncrementalDag::both_ways(std::uint32_t v, std::uint32_t u, std::uint32_t budget,
                               bool* overflowed) {
  const std::uint32_t lower = node_[v].ord, limit = node_[u].ord;
  unmark();
  const std::uint32_t fwd = epoch_;
  unmark();  // a wrap here zeroes every mark, and fwd still differs from the new epoch
  const std::uint32_t bwd = epoch_;
  stack_.assign(1, v);
  node_[v].mark = fwd;
  back_.assign(1, u);
  node_[u].mark = bwd;
  std::uint32_t popped = 0;
  bool back_open = true;
  while (!stack_.empty()) {
    const std::uint32_t w = stack_.back();
    stack_.pop_back();
    if (++popped > budget) {
      *overflowed = true;
      return false;
    }
    const List& out = out_[w];
    for (const std::uint32_t* p = begin(out); p != end(out); ++p) {
      Node& n = node_[*p];
      if (n.mark == bwd) return false;  // *p reaches u (or is u)
      if (n.mark == fwd || n.ord > limit) continue;
      n.mark = fwd;
      stack_.push_back(*p);
    }
    if (!back_open) continue;
    if (back_.empty()) {  // u's ancestors in the window are all known, v not among them
      if (limit - lower <= budget) return true;
      back_open = false;
      continue;
    }
    const std::uint32_t b = back_.back();
    back_.pop_back();
    const List& in = in_[b];
    for (const std::uint32_t* p = begin(in); p != end(in); ++p) {
      Node& n = node_[*p];
      if (n.mark == fwd) return false;  // v reaches *p (or it is v)
      if (n.mark == bwd || n.ord < lower) continue;
      n.mark = bwd;
      back_.push_back(*p);
    }
  }
  return true;
}

// The full set is needed, in any order: breadth first, the visited list as the queue.
void IncrementalDag::backward(std::uint32_t u, std::uint32_t limit) {
  unmark();
  seen_b_.assign(1, u);
  node_[u].mark = epoch_;
  for (std::size_t i = 0; i < seen_b_.size(); ++i) {
    const List& list = in_[seen_b_[i]];
    for (const std::uint32_t* p = begin(list); p != end(list); ++p) {
      const std::uint32_t x = *p;
      Node& n = node_[x];
      if (n.mark == epoch_ || n.ord < limit) continue;
      n.mark = epoch_;
      seen_b_.push_back(x);
    }
  }
}

// Everything that must now precede the new edge's head (seen_b_, ending in u) moves
// before everything that follows it (seen_f_, starting at v), within the positions
// the two sets already hold; the rest of the order is untouched. Both sets lie within
// the positions [lower, upper] of v and u.
void IncrementalDag::reorder(std::uint32_t lower, std::uint32_t upper) {
  const std::size_t k = seen_b_.size() + seen_f_.size();
  const std::size_t width = std::size_t{upper} - lower + 1;
  if (width <= 32 * k) {
    // Sorted by a walk over the window, which is rarely much wider than the sets (a
    // torus's windows: 4 times), instead of sorting them.
    window_.assign(width, 0);
    for (std::uint32_t w : seen_b_)
      window_[node_[w].ord - lower] = 1;
    for (std::uint32_t w : seen_f_)
      window_[node_[w].ord - lower] = 2;
    seen_b_.clear();
    seen_f_.clear();
    slots_.clear();
    for (std::size_t i = 0; i < width; ++i) {
      if (window_[i] == 0) continue;
      const auto pos = static_cast<std::uint32_t>(lower + i);
      (window_[i] == 1 ? seen_b_ : seen_f_).push_back(at_[pos]);
      slots_.push_back(pos);
    }
  } else {
    // Sorted by position as plain integers (position << 32 | node).
    const auto by_ord = [this](std::vector<std::uint32_t>& set) {
      sort_.clear();
      for (std::uint32_t w : set)
        sort_.push_back(std::uint64_t{node_[w].ord} << 32 | w);
      std::sort(sort_.begin(), sort_.end());
      for (std::size_t i = 0; i < set.size(); ++i)
        set[i] = static_cast<std::uint32_t>(sort_[i]);
    };
    by_ord(seen_b_);
    by_ord(seen_f_);
    slots_.clear();
    std::size_t ib = 0, jf = 0;
    while (ib < seen_b_.size() || jf < seen_f_.size()) {
      if (jf == seen_f_.size() ||
          (ib < seen_b_.size() && node_[seen_b_[ib]].ord < node_[seen_f_[jf]].ord))
        slots_.push_back(node_[seen_b_[ib++]].ord);
      else
        slots_.push_back(node_[seen_f_[jf++]].ord);
    }
  }
  std::size_t i = 0;
  for (const auto* set : {&seen_b_, &seen_f_}) {
    for (std::uint32_t w : *set) {
      node_[w].ord = slots_[i];
      at_[slots_[i]] = w;
      ++i;
    }
  }
  changed();
}

bool IncrementalDag::can_add(std::uint32_t u, std::uint32_t v, std::uint32_t budget) {
  if (u == v) return false;
  // A present edge agrees with the order, so only an edge against it needs a look.
  if (node_[u].ord < node_[v].ord) return true;
  if (refused_.contains(key(u, v))) return false;
  Overflow& o = overflow_[v];
  const std::uint32_t limit = node_[u].ord;
  bool overflowed = false;
  if (!(o.version == version_ && limit >= o.limit && budget <= o.budget)) {
    if (both_ways(v, u, budget, &overflowed)) return true;
    // Kept unless the new record covers every query the old one answers.
    if (overflowed && (o.version != version_ || (budget >= o.budget && limit <= o.limit)))
      o = {limit, budget, version_};
  }
  refused_.insert(key(u, v));
  return false;
}

bool IncrementalDag::add(std::uint32_t u, std::uint32_t v) {
  if (u == v) return false;
  if (node_[u].ord < node_[v].ord) {
    if (std::uint32_t* c = count_.find(key(u, v))) {
      ++*c;
      return true;
    }
  } else {  // against the order, so not present
    const std::uint32_t lower = node_[v].ord, upper = node_[u].ord;
    if (!forward(v, u, upper)) return false;
    backward(u, lower);
    reorder(lower, upper);
  }
  count_.insert(key(u, v), 1u);
  push(out_[u], v);
  push(in_[v], u);
  return true;
}

void IncrementalDag::remove(std::uint32_t u, std::uint32_t v) {
  std::uint32_t* c = count_.find(key(u, v));
  if (c == nullptr) return;
  if (--*c > 0) return;
  count_.erase(key(u, v));
  if (!keep_refusals_) {
    refused_.clear();  // what closed a cycle may not any more
    changed();
  }
  drop(out_[u], v);
  drop(in_[v], u);
}

}  // namespace ibsm::routing
