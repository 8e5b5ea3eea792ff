#include "partitions/resolve.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <set>

#include "partitions/defaults.hpp"
#include "partitions/errors.hpp"

namespace ibsm::partitions {
namespace {

class Resolver {
 public:
  Resolver(const Config& c, const ResolveOptions& o) : config_(c), opt_(o) {}

  ResolvedConfig run() {
    for (const auto& [name, pkey] : opt_.previous_auto_pkeys)
      taken_.insert(pkey);
    Statement implicit = implicit_default_statement();
    statement(implicit, true);
    for (const Statement& st : config_.statements)
      out_.statement_partition.push_back(statement(st, false));
    return std::move(out_);
  }

 private:
  void warn(ErrorId id, const SourceLoc& at, std::string msg) {
    out_.diagnostics.push_back({Severity::kWarning, id, at.line, at.column, std::move(msg), ""});
  }

  std::optional<std::size_t> by_pkey(std::uint16_t pkey) const {
    for (std::size_t i = 0; i < out_.partitions.size(); ++i)
      if (out_.partitions[i].pkey == pkey) return i;
    return std::nullopt;
  }

  std::optional<std::size_t> partition_for(const Statement& st) {
    std::uint16_t pkey = st.pkey;
    bool automatic = false;
    if (pkey == 0) {
      if (!st.name.empty()) {
        for (std::size_t i = 0; i < out_.partitions.size(); ++i)
          if (out_.partitions[i].name == st.name) return i;
        auto prev = opt_.previous_auto_pkeys.find(st.name);
        if (prev != opt_.previous_auto_pkeys.end() && !by_pkey(prev->second)) {
          pkey = prev->second;
          automatic = true;
        }
      }
      if (pkey == 0) {
        while (counter_ < kDefaultPKey - 1) {
          const auto candidate = static_cast<std::uint16_t>(++counter_);
          if (!by_pkey(candidate) && !taken_.count(candidate)) {
            pkey = candidate;
            break;
          }
        }
        if (pkey == 0) {
          out_.diagnostics.push_back({Severity::kError, kPKeysExhausted, st.loc.line, st.loc.column,
                                      "no P_Key left for '" + st.name + "'", "an explicit P_Key"});
          return std::nullopt;
        }
        automatic = true;
      }
    }
    if (auto existing = by_pkey(pkey)) {
      if (!automatic && out_.partitions[*existing].auto_pkey &&
          !out_.partitions[*existing].name.empty() && out_.partitions[*existing].name != st.name)
        warn(kAutoPKeyTakenLater, st.loc,
             "P_Key " + hex4(pkey) + " was assigned automatically to '" +
                 out_.partitions[*existing].name + "'; this statement merges into it");
      return existing;
    }
    ResolvedPartition p;
    p.pkey = pkey;
    p.auto_pkey = automatic;
    p.name = st.name.empty() ? hex4(pkey).substr(2) : st.name;
    out_.partitions.push_back(p);
    return out_.partitions.size() - 1;
  }

  static std::string hex4(std::uint16_t v) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%04x", v);
    return buf;
  }

  bool group_exists(const Gid& g) const {
    return std::any_of(out_.groups.begin(), out_.groups.end(),
                       [&](const GroupSpec& s) { return s.mgid == g; });
  }

  void create(GroupSpec spec, std::uint16_t scope_mask, const SourceLoc& at) {
    std::vector<std::uint8_t> scopes;
    for (std::uint8_t s = 0; s < 16; ++s)
      if (scope_mask & (1u << s)) scopes.push_back(s);
    if (scopes.empty()) scopes.push_back(kDefaultScope);
    for (std::uint8_t scope : scopes) {
      GroupSpec g = spec;
      g.scope = scope;
      gid_set_scope(g.mgid, scope);
      if (group_exists(g.mgid)) continue;
      if (gid_is_ip(g.mgid) && !g.broadcast && !is_broadcast_shape(g.mgid)) {
        const Gid bcast = ipoib_broadcast_mgid(gid_pkey(g.mgid), scope);
        if (!group_exists(bcast)) {
          warn(kIpGroupWithoutBroadcast, at,
               "IP group " + format_gid(g.mgid) + " needs the broadcast group " +
                   format_gid(bcast) + " (add 'ipoib' to the partition); skipped");
          continue;
        }
      }
      g.loc = at;
      out_.groups.push_back(g);
    }
  }

  static bool is_broadcast_shape(const Gid& g) {
    Gid probe = g;
    gid_set_pkey(probe, 0xffff);
    gid_set_scope(probe, 2);
    return g[2] == 0x40 && probe == ipoib_broadcast_mgid(0xffff, 2);
  }

  std::size_t statement(const Statement& st, bool implicit) {
    auto idx = partition_for(st);
    if (!idx) return SIZE_MAX;
    ResolvedPartition& part = out_.partitions[*idx];
    GroupFlags flags = st.flags;
    if (!opt_.qos) flags.sl = 0;
    part.sl = flags.sl;
    const std::uint16_t pkey = part.pkey;
    const auto full_pkey = static_cast<std::uint16_t>(pkey | 0x8000);

    if (st.ipoib) {
      part.ipoib = true;
      GroupSpec g;
      g.mgid = ipoib_broadcast_mgid(full_pkey, kDefaultScope);
      g.partition = *idx;
      g.pkey = full_pkey;
      g.mtu = flags.mtu;
      g.rate = flags.rate;
      g.sl = flags.sl;
      g.qkey = flags.qkey ? flags.qkey : kIpoibQKey;
      g.tclass = flags.tclass;
      g.flow_label = flags.flow_label;
      g.broadcast = true;
      create(g, flags.scope_mask, st.loc);
    }

    for (const Member& m : st.members) {
      MemberRule r;
      r.partition = *idx;
      r.kind = m.kind;
      r.guid = m.guid;
      r.membership = m.membership.value_or(st.defmember);
      r.indx0 = st.indx0;
      r.implicit = implicit;
      out_.rules.push_back(r);
    }

    for (const McGroupLine& line : st.groups) {
      const GroupOverrides& o = line.overrides;
      GroupSpec g;
      g.mgid = line.mgid;
      g.partition = *idx;
      g.pkey = full_pkey;
      g.mtu = o.mtu.value_or(flags.mtu);
      g.rate = o.rate.value_or(flags.rate);
      g.sl = o.sl.value_or(flags.sl);
      g.qkey = o.qkey.value_or(flags.qkey);
      g.tclass = o.tclass.value_or(0);  // OpenSM does not inherit TClass on mgid lines
      g.flow_label = o.flow_label.value_or(flags.flow_label);
      const auto scope_mask = static_cast<std::uint16_t>(flags.scope_mask | o.scope_mask);
      if (gid_is_ip(g.mgid)) {
        const std::uint16_t bits = gid_pkey(g.mgid);
        if (!is_exact_broadcast_template(g.mgid) && bits != 0 && bits != full_pkey) {
          warn(kIpGroupPKeyMismatch, line.loc,
               "IP group " + format_gid(g.mgid) + " has P_Key bits " + hex4(bits) +
                   " but the partition's P_Key is " + hex4(pkey) + "; skipped");
          continue;
        }
        if (g.rate != flags.rate || g.mtu != flags.mtu) {
          warn(
              kIpGroupRateMtuMismatch, line.loc,
              "IP group " + format_gid(g.mgid) + " must use the partition's rate and MTU; skipped");
          continue;
        }
        gid_set_pkey(g.mgid, full_pkey);
        if (g.qkey == 0) g.qkey = kIpoibQKey;
      }
      if (group_exists(g.mgid)) continue;  // OpenSM checks the MGID as written first
      create(g, scope_mask, line.loc);
    }
    return *idx;
  }

  static bool is_exact_broadcast_template(const Gid& g) {
    return g == ipoib_broadcast_mgid(0xffff, 2);
  }

  const Config& config_;
  const ResolveOptions& opt_;
  ResolvedConfig out_;
  unsigned counter_ = 0;
  std::set<std::uint16_t> taken_;
};

}  // namespace

const ResolvedPartition* ResolvedConfig::find(std::uint16_t pkey) const {
  for (const auto& p : partitions)
    if (p.pkey == (pkey & 0x7fff)) return &p;
  return nullptr;
}

std::map<std::string, std::uint16_t> ResolvedConfig::auto_pkeys() const {
  std::map<std::string, std::uint16_t> m;
  for (const auto& p : partitions)
    if (p.auto_pkey) m[p.name] = p.pkey;
  return m;
}

ResolvedConfig resolve(const Config& config, const ResolveOptions& options) {
  return Resolver(config, options).run();
}

}  // namespace ibsm::partitions
