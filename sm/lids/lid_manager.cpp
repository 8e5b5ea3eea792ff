#include "sm/lids/lid_manager.hpp"

#include <algorithm>

namespace ibsm::sm {

Result<std::vector<mad::Lid>> assign_lids(const std::vector<LidRequest>& requests,
                                          const Guid2Lid& db, const LidPolicy& policy) {
  const mad::Lid max_lid = std::min<mad::Lid>(policy.max_lid, mad::kMaxUnicastLid);
  std::vector<mad::Guid> owner(static_cast<std::size_t>(max_lid) + 1, 0);  // 0 = free
  std::vector<mad::Lid> result(requests.size(), 0);

  auto range_free = [&](mad::Lid base, std::uint8_t lmc, mad::Guid guid) {
    for (unsigned l = base; l < base + (1u << lmc); ++l)
      if (owner[l] != 0 && owner[l] != guid) return false;
    return true;
  };
  auto take = [&](std::size_t i, mad::Lid base) {
    for (unsigned l = base; l < base + (1u << requests[i].lmc); ++l)
      owner[l] = requests[i].guid;
    result[i] = base;
  };

  // The SM port goes first, then the rest in the order given (discovery order).
  std::vector<std::size_t> order(requests.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_partition(order.begin(), order.end(),
                        [&](std::size_t i) { return requests[i].is_sm_port; });

  // 1. Current LIDs. A LID held by two ports stays with the one guid2lid agrees with.
  auto keep_current = [&] {
    std::vector<unsigned> holders(static_cast<std::size_t>(max_lid) + 1, 0);
    for (const auto& r : requests)
      if (lid_range_valid(r.current, r.lmc, max_lid)) ++holders[r.current];
    for (std::size_t i : order) {
      const auto& r = requests[i];
      if (result[i] != 0) continue;  // guid2lid placed it already (guid2lid_first)
      if (!lid_range_valid(r.current, r.lmc, max_lid) || !range_free(r.current, r.lmc, r.guid))
        continue;
      if (holders[r.current] > 1) {
        auto it = db.find(r.guid);
        if (it == db.end() || it->second.min != r.current) continue;
      }
      take(i, r.current);
    }
  };
  // 2. guid2lid.
  auto use_guid2lid = [&] {
    for (std::size_t i : order) {
      if (result[i] != 0) continue;
      auto it = db.find(requests[i].guid);
      if (it == db.end()) continue;
      const mad::Lid base = it->second.min;
      if (lid_range_valid(base, requests[i].lmc, max_lid) &&
          range_free(base, requests[i].lmc, requests[i].guid)) {
        take(i, base);
      }
    }
  };
  if (!policy.reassign) {
    if (policy.guid2lid_first) {
      use_guid2lid();
      keep_current();
    } else {
      keep_current();
      use_guid2lid();
    }
  }

  // 3. Allocation. LIDs guid2lid keeps for ports that are absent now are avoided
  // while the space allows, so a node that comes back finds its LID free.
  std::vector<bool> reserved(static_cast<std::size_t>(max_lid) + 1, false);
  if (!policy.reassign) {
    for (const auto& [guid, range] : db)
      for (unsigned l = range.min; l <= range.max && l <= max_lid; ++l)
        reserved[l] = true;
  }
  for (bool honour_reservations : {true, false}) {
    mad::Lid cursor = 1;
    for (std::size_t i : order) {
      if (result[i] != 0) continue;
      const std::uint8_t lmc = requests[i].lmc;
      const unsigned step = 1u << lmc;
      mad::Lid base = static_cast<mad::Lid>((cursor + step - 1) & ~(step - 1));
      for (; lid_range_valid(base, lmc, max_lid); base = static_cast<mad::Lid>(base + step)) {
        bool ok = range_free(base, lmc, requests[i].guid);
        for (unsigned l = base; ok && honour_reservations && l < base + step; ++l) {
          auto it = db.find(requests[i].guid);
          const bool mine = it != db.end() && l >= it->second.min && l <= it->second.max;
          if (reserved[l] && !mine) ok = false;
        }
        if (ok) break;
      }
      if (!lid_range_valid(base, lmc, max_lid)) continue;  // next pass or failure
      take(i, base);
      cursor = static_cast<mad::Lid>(base + step);
    }
  }
  for (std::size_t i = 0; i < result.size(); ++i) {
    if (result[i] == 0) {
      return fail(kErrLidSpaceExhausted,
                  "no free LID range for port " + mad::format_guid(requests[i].guid) +
                      " (unicast LIDs up to " + std::to_string(max_lid) + ")");
    }
  }
  return result;
}

}  // namespace ibsm::sm
