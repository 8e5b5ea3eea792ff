#include "partitions/pkey_table.hpp"

#include <algorithm>
#include <deque>
#include <optional>

namespace ibsm::partitions {
namespace {

constexpr std::uint16_t base(std::uint16_t p) {
  return p & 0x7fff;
}
constexpr bool valid(std::uint16_t p) {
  return base(p) != 0;
}

class Placer {
 public:
  Placer(const TableRequest& r, PKeyIndexHistory& h) : r_(r), accum_(h) {}

  TableResult run() {
    const std::size_t blocks = (r_.capacity + kPKeysPerBlock - 1) / kPKeysPerBlock;
    out_.table.assign(blocks * kPKeysPerBlock, 0);

    struct Pending {
      std::uint16_t pkey;
      bool is_new;
      std::uint16_t index;
    };
    std::deque<Pending> pending;
    for (std::uint16_t w : r_.wanted) {
      auto idx = find_current(w);
      if (!idx) {
        pending.push_back({w, true, 0});
        continue;
      }
      bool is_new = false;
      if (r_.indx0_pkey) {
        if (is_indx0(w) && *idx != 0) {
          is_new = true;
          clear_accum(*idx);
        }
        if (*idx == 0 && !is_indx0(w)) {
          is_new = true;
          clear_accum(0);
        }
      } else if (*idx == 0 && base(w) != 0x7fff) {
        is_new = true;
        clear_accum(0);
      } else if (*idx != 0 && is_default(w)) {
        is_new = true;
        clear_accum(*idx);
      }
      if (is_new)
        pending.push_back({w, true, 0});
      else
        pending.push_front({w, false, *idx});
    }

    while (!pending.empty()) {
      Pending p = pending.front();
      pending.pop_front();
      std::optional<std::uint16_t> idx;
      bool from_accum = false;
      if (!p.is_new) {
        idx = p.index;
      } else {
        auto a = accum_.find(p.pkey);
        if (a != accum_.end()) {
          const std::uint16_t ai = a->second;
          if (is_indx0(p.pkey) || (p.pkey != r_.indx0_pkey && ai == 0)) {
            clear_accum(ai);
            pending.push_back(p);
            continue;
          }
          idx = ai;
          from_accum = true;
        }
        if (!idx) idx = place_new(p.pkey);
      }
      if (!idx || *idx >= out_.table.size()) {
        out_.dropped.push_back(p.pkey);
        continue;
      }
      out_.table[*idx] = p.pkey;
      out_.used_blocks = std::max(out_.used_blocks, *idx / kPKeysPerBlock + 1);
      if (!from_accum) accum_[p.pkey] = *idx;
    }
    return std::move(out_);
  }

 private:
  bool is_indx0(std::uint16_t w) const {
    if (!r_.indx0_pkey) return false;
    return r_.allow_both_pkeys ? w == r_.indx0_pkey : base(w) == base(r_.indx0_pkey);
  }
  bool is_default(std::uint16_t w) const {
    return r_.allow_both_pkeys ? w == 0xffff : base(w) == 0x7fff;
  }

  std::optional<std::uint16_t> find_current(std::uint16_t w) const {
    const std::size_t n = std::min<std::size_t>(r_.current.size(), out_.table.size());
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint16_t c = r_.current[i];
      if (!valid(c)) continue;
      if (r_.allow_both_pkeys ? c == w : base(c) == base(w)) return static_cast<std::uint16_t>(i);
    }
    return std::nullopt;
  }

  void clear_accum(std::uint16_t index) {
    for (auto it = accum_.begin(); it != accum_.end(); ++it) {
      if (it->second == index) {
        accum_.erase(it);
        return;
      }
    }
  }

  std::optional<std::uint16_t> last_accum() const {
    std::optional<std::uint16_t> last;
    for (const auto& [pkey, idx] : accum_)
      if (!last || idx > *last) last = idx;
    return last;
  }

  std::optional<std::uint16_t> place_new(std::uint16_t w) {
    std::size_t idx;
    if (!r_.indx0_pkey && is_default(w))
      idx = 0;
    else if (is_indx0(w))
      idx = 0;
    else if (auto last = last_accum())
      idx = *last + 1u;
    else
      idx = 1;
    if (idx < r_.capacity) return static_cast<std::uint16_t>(idx);
    if (is_default(w)) return std::nullopt;
    for (std::size_t i = 1; i < r_.capacity && i < out_.table.size(); ++i) {
      if (!valid(out_.table[i])) {
        clear_accum(static_cast<std::uint16_t>(i));
        return static_cast<std::uint16_t>(i);
      }
    }
    return std::nullopt;
  }

  const TableRequest& r_;
  PKeyIndexHistory& accum_;
  TableResult out_;
};

}  // namespace

std::vector<std::uint16_t> opensm_pkey_order(std::vector<std::uint16_t> pkeys) {
  auto key = [](std::uint16_t p) {
    const std::uint16_t b = base(p);
    const auto swapped = static_cast<std::uint16_t>((b << 8) | (b >> 8));
    return std::pair(swapped, (p & 0x8000) != 0);  // limited before full
  };
  std::stable_sort(pkeys.begin(), pkeys.end(),
                   [&](std::uint16_t a, std::uint16_t b) { return key(a) < key(b); });
  return pkeys;
}

TableResult plan_table(const TableRequest& request, PKeyIndexHistory& history) {
  return Placer(request, history).run();
}

std::vector<std::uint16_t> peer_table(const std::vector<std::uint16_t>& t,
                                      std::size_t used_blocks) {
  std::vector<std::uint16_t> out;
  const std::size_t n = std::min(t.size(), used_blocks * kPKeysPerBlock);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint16_t p = t[i];
    if (!valid(p)) continue;
    if (!(p & 0x8000) &&
        std::find(t.begin(), t.end(), static_cast<std::uint16_t>(p | 0x8000)) != t.end())
      continue;
    out.push_back(p);
  }
  return out;
}

std::vector<std::uint16_t> changed_blocks(const std::vector<std::uint16_t>& have,
                                          const std::vector<std::uint16_t>& want,
                                          std::size_t blocks) {
  std::vector<std::uint16_t> out;
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::size_t lo = b * kPKeysPerBlock;
    bool differs = have.size() < lo + kPKeysPerBlock;
    for (std::size_t i = lo; i < lo + kPKeysPerBlock && !differs; ++i) {
      const std::uint16_t w = i < want.size() ? want[i] : 0;
      if (have[i] != w) differs = true;
    }
    if (differs) out.push_back(static_cast<std::uint16_t>(b));
  }
  return out;
}

}  // namespace ibsm::partitions
