#include "partitions/mcast_groups.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "partitions/c_number.hpp"
#include "partitions/errors.hpp"

namespace ibsm::partitions {

std::vector<Diagnostic> McGroupTable::apply_configuration(
    const std::vector<GroupSpec>& groups, const std::vector<bool>* partition_present,
    const MlidAssignment& previous) {
  std::vector<Diagnostic> diags;
  std::vector<const GroupSpec*> wanted;
  for (const GroupSpec& g : groups) {
    if (partition_present && g.partition < partition_present->size() &&
        !(*partition_present)[g.partition])
      continue;
    wanted.push_back(&g);
  }
  // Drop configured groups that are gone.
  for (auto it = groups_.begin(); it != groups_.end();) {
    const bool keep = it->second.origin != McGroup::Origin::kConfigured ||
                      std::any_of(wanted.begin(), wanted.end(),
                                  [&](const GroupSpec* g) { return g->mgid == it->first; });
    if (!keep) {
      mlids_.release(it->second.mlid);
      it = groups_.erase(it);
    } else {
      ++it;
    }
  }
  // Previous MLIDs first, so that new groups cannot take them.
  std::vector<const GroupSpec*> fresh;
  for (const GroupSpec* g : wanted) {
    auto existing = groups_.find(g->mgid);
    if (existing != groups_.end()) {
      existing->second.params = *g;
      existing->second.origin = McGroup::Origin::kConfigured;
      continue;
    }
    auto prev = previous.find(g->mgid);
    if (prev != previous.end() && mlids_.reserve(prev->second)) {
      groups_[g->mgid] = McGroup{*g, prev->second, McGroup::Origin::kConfigured};
      continue;
    }
    fresh.push_back(g);
  }
  for (const GroupSpec* g : fresh) {
    auto mlid = mlids_.allocate();
    if (!mlid) {
      diags.push_back({Severity::kWarning, kMlidsExhausted, g->loc.line, g->loc.column,
                       "no MLID left for " + format_gid(g->mgid), ""});
      continue;
    }
    groups_[g->mgid] = McGroup{*g, *mlid, McGroup::Origin::kConfigured};
  }
  return diags;
}

const McGroup* McGroupTable::find(const Gid& mgid) const {
  auto it = groups_.find(mgid);
  return it == groups_.end() ? nullptr : &it->second;
}

std::vector<McGroup> McGroupTable::by_mlid() const {
  std::vector<McGroup> v;
  for (const auto& [gid, g] : groups_)
    v.push_back(g);
  std::sort(v.begin(), v.end(), [](const McGroup& a, const McGroup& b) { return a.mlid < b.mlid; });
  return v;
}

MlidAssignment McGroupTable::assignment() const {
  MlidAssignment a;
  for (const auto& [gid, g] : groups_)
    a[gid] = g.mlid;
  return a;
}

std::string format_mlid_assignment(const MlidAssignment& a) {
  std::string out;
  for (const auto& [gid, mlid] : a) {
    char buf[16];
    std::snprintf(buf, sizeof buf, " 0x%04x\n", mlid);
    out += format_gid(gid) + buf;
  }
  return out;
}

MlidAssignment parse_mlid_assignment(std::string_view text) {
  MlidAssignment a;
  std::istringstream in{std::string(text)};
  std::string gid_text, mlid_text;
  while (in >> gid_text >> mlid_text) {
    auto gid = parse_gid(gid_text);
    auto mlid = parse_c_number_exact(mlid_text);
    if (gid && mlid && *mlid >= kFirstMlid && *mlid <= kLastMlid)
      a[*gid] = static_cast<std::uint16_t>(*mlid);
  }
  return a;
}

}  // namespace ibsm::partitions
