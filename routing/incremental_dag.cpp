#include "routing/incremental_dag.hpp"

#include <algorithm>
#include <numeric>

namespace ibsm::routing {

IncrementalDag::IncrementalDag(std::uint32_t nodes)
    : ord_(nodes), at_(nodes), out_(nodes), in_(nodes), mark_(nodes, 0) {
  std::iota(ord_.begin(), ord_.end(), 0u);
  std::iota(at_.begin(), at_.end(), 0u);
}

IncrementalDag::IncrementalDag(const std::vector<std::uint32_t>& order)
    : IncrementalDag(static_cast<std::uint32_t>(order.size())) {
  for (std::uint32_t i = 0; i < order.size(); ++i) {
    at_[i] = order[i];
    ord_[order[i]] = i;
  }
}

void IncrementalDag::unmark() {
  if (++epoch_ == 0) {  // wrapped: old marks could look current
    std::fill(mark_.begin(), mark_.end(), 0u);
    epoch_ = 1;
  }
}

bool IncrementalDag::forward(std::uint32_t v, std::uint32_t u, std::uint32_t limit,
                             std::uint32_t budget) {
  unmark();
  seen_f_.clear();
  stack_.assign(1, v);
  mark_[v] = epoch_;
  while (!stack_.empty()) {
    const std::uint32_t w = stack_.back();
    stack_.pop_back();
    seen_f_.push_back(w);
    if (seen_f_.size() > budget) return false;
    for (std::uint32_t x : out_[w]) {
      if (x == u) return false;
      if (mark_[x] == epoch_ || ord_[x] > limit) continue;
      mark_[x] = epoch_;
      stack_.push_back(x);
    }
  }
  return true;
}

void IncrementalDag::backward(std::uint32_t u, std::uint32_t limit) {
  unmark();
  seen_b_.clear();
  stack_.assign(1, u);
  mark_[u] = epoch_;
  while (!stack_.empty()) {
    const std::uint32_t w = stack_.back();
    stack_.pop_back();
    seen_b_.push_back(w);
    for (std::uint32_t x : in_[w]) {
      if (mark_[x] == epoch_ || ord_[x] < limit) continue;
      mark_[x] = epoch_;
      stack_.push_back(x);
    }
  }
}

// Everything that must now precede the new edge's head (seen_b_, ending in u) moves
// before everything that follows it (seen_f_, starting at v), within the positions
// the two sets already hold; the rest of the order is untouched.
void IncrementalDag::reorder() {
  const auto by_ord = [this](std::uint32_t a, std::uint32_t b) { return ord_[a] < ord_[b]; };
  std::sort(seen_b_.begin(), seen_b_.end(), by_ord);
  std::sort(seen_f_.begin(), seen_f_.end(), by_ord);
  std::vector<std::uint32_t> b, f, slots(seen_b_.size() + seen_f_.size());
  b.reserve(seen_b_.size());
  f.reserve(seen_f_.size());
  for (std::uint32_t w : seen_b_)
    b.push_back(ord_[w]);
  for (std::uint32_t w : seen_f_)
    f.push_back(ord_[w]);
  std::merge(b.begin(), b.end(), f.begin(), f.end(), slots.begin());
  std::size_t i = 0;
  for (const auto* set : {&seen_b_, &seen_f_}) {
    for (std::uint32_t w : *set) {
      ord_[w] = slots[i];
      at_[slots[i]] = w;
      ++i;
    }
  }
}

bool IncrementalDag::can_add(std::uint32_t u, std::uint32_t v, std::uint32_t budget) {
  if (u == v) return false;
  if (ord_[u] < ord_[v] || has(u, v)) return true;
  if (refused_.contains(key(u, v))) return false;
  if (forward(v, u, ord_[u], budget)) return true;
  refused_.insert(key(u, v));
  return false;
}

bool IncrementalDag::add(std::uint32_t u, std::uint32_t v) {
  if (u == v) return false;
  auto it = count_.find(key(u, v));
  if (it != count_.end()) {
    ++it->second;
    return true;
  }
  if (ord_[u] > ord_[v]) {
    const std::uint32_t lower = ord_[v], upper = ord_[u];
    if (!forward(v, u, upper)) return false;
    backward(u, lower);
    reorder();
  }
  count_.emplace(key(u, v), 1u);
  out_[u].push_back(v);
  in_[v].push_back(u);
  return true;
}

void IncrementalDag::remove(std::uint32_t u, std::uint32_t v) {
  auto it = count_.find(key(u, v));
  if (it == count_.end()) return;
  if (--it->second > 0) return;
  count_.erase(it);
  refused_.clear();  // what closed a cycle may not any more
  const auto drop = [](std::vector<std::uint32_t>& list, std::uint32_t x) {
    auto p = std::find(list.begin(), list.end(), x);
    if (p == list.end()) return;
    *p = list.back();
    list.pop_back();
  };
  drop(out_[u], v);
  drop(in_[v], u);
}

}  // namespace ibsm::routing
