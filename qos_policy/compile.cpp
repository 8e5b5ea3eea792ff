// Port groups resolved against a fabric, and the per-signature candidate tables
// (compile.hpp).
#include "qos_policy/compile.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "qos_policy/errors.hpp"

namespace ibsm::qos_policy {

namespace {

// Signature pairs beyond this are not tabled (8 lists each); rules are then tested one
// by one, still with each port's groups precomputed.
constexpr std::size_t kMaxTabledPairs = std::size_t{1} << 18;

std::string hex4(std::uint64_t v) {
  static const char* d = "0123456789abcdef";
  std::string s = "0x0000";
  for (int i = 5; i >= 2; --i, v >>= 4)
    s[static_cast<std::size_t>(i)] = d[v & 0xf];
  return s;
}

// Which ports of the fabric a group holds.
std::vector<bool> members(const PortGroup& g, const FabricView& f) {
  std::vector<bool> in(f.ports.size(), false);
  std::vector<std::uint16_t> pkeys;
  for (const Range& r : g.pkeys) {
    for (std::uint64_t k = r.lo; k <= r.hi; ++k)
      pkeys.push_back(static_cast<std::uint16_t>(k));
  }
  for (const std::string& name : g.partitions) {
    for (const FabricPartition& p : f.partitions) {
      // OpenSM osm_prtn_find_by_name: exact name.
      if (p.name == name) pkeys.push_back(p.pkey);
    }
  }
  std::sort(pkeys.begin(), pkeys.end());
  // port-name "desc/Pn": split at the last slash (checked by the parser).
  std::vector<std::pair<std::string, std::uint64_t>> names;
  for (const std::string& pn : g.port_names) {
    const auto slash = pn.rfind('/');
    names.emplace_back(pn.substr(0, slash), std::strtoull(pn.c_str() + slash + 2, nullptr, 0));
  }
  for (std::size_t i = 0; i < f.ports.size(); ++i) {
    const FabricPort& p = f.ports[i];
    bool m =
        (g.node_types & p.node_type) != 0 || (g.self && p.is_sm_port) || contains(g.guids, p.guid);
    for (std::size_t k = 0; !m && k < p.partitions.size(); ++k)
      m = std::binary_search(pkeys.begin(), pkeys.end(), p.partitions[k]);
    for (std::size_t k = 0; !m && k < names.size(); ++k) {
      m = names[k].first == p.node_desc &&
          std::find(p.port_nums.begin(), p.port_nums.end(), names[k].second) != p.port_nums.end();
    }
    in[i] = m;
  }
  return in;
}

}  // namespace

bool CompiledPolicy::in_group(std::uint32_t port, std::size_t group) const {
  if (port >= sig_of_port_.size()) return false;
  const std::uint64_t w = sig_groups_[sig_of_port_[port] * words_ + group / 64];
  return (w >> (group % 64) & 1u) != 0;
}

std::uint32_t CompiledPolicy::match_rule(std::uint32_t src, std::uint32_t dst,
                                         const MatchQuery& q) const {
  const auto& rules = policy_->rules;
  if (rules.empty() || src >= sig_of_port_.size() || dst >= sig_of_port_.size()) return kNoRule;
  const std::uint32_t a = sig_of_port_[src];
  const std::uint32_t b = sig_of_port_[dst];
  const unsigned fields = (q.qos_class ? 1u : 0u) | (q.service_id ? 2u : 0u) | (q.pkey ? 4u : 0u);
  auto fields_match = [&](std::uint32_t r) {
    const MatchRule& m = rules[r];
    return (m.qos_class.empty() || contains(m.qos_class, *q.qos_class)) &&
           (m.service_id.empty() || contains(m.service_id, *q.service_id)) &&
           (m.pkey.empty() || contains(m.pkey, *q.pkey & 0x7fffu));
  };
  if (tabled_) {
    const std::size_t slot = (static_cast<std::size_t>(a) * sig_count_ + b) * 8 + fields;
    for (std::uint32_t k = cand_begin_[slot]; k < cand_begin_[slot + 1]; ++k) {
      if (fields_match(cand_[k])) return cand_[k];
    }
    return kNoRule;
  }
  for (std::uint32_t r = 0; r < rules.size(); ++r) {
    if ((rule_needs_[r] & ~fields) != 0) continue;
    if (!src_ok_[r * sig_count_ + a] || !dst_ok_[r * sig_count_ + b]) continue;
    if (fields_match(r)) return r;
  }
  return kNoRule;
}

std::optional<CompiledPolicy> compile(std::shared_ptr<const Policy> policy, const FabricView& f,
                                      std::vector<CompileNote>& notes) {
  const Policy& p = *policy;
  // IPoIB partitions: strict, as OpenSM (__validate_pkeys with is_ipoib).
  for (const IpoibCheck& c : p.ipoib_checks) {
    for (const Range& r : c.pkeys) {
      for (std::uint64_t k = r.lo; k <= r.hi; ++k) {
        auto it = std::find_if(f.partitions.begin(), f.partitions.end(),
                               [&](const FabricPartition& x) { return x.pkey == k; });
        if (it == f.partitions.end()) {
          notes.push_back({true, kPolicyIpoibPartition.code, c.pos,
                           "IPoIB partition, pkey " + hex4(k) + " - partition doesn't exist"});
          return std::nullopt;
        }
        if (it->full_members < 2) {
          notes.push_back(
              {true, kPolicyIpoibPartition.code, c.pos,
               "IPoIB partition, pkey " + hex4(k) + " - partition has less than two full members"});
          return std::nullopt;
        }
      }
    }
  }
  for (const auto& [ranges, pos] : p.rule_pkeys) {
    for (const Range& r : ranges) {
      for (std::uint64_t k = r.lo; k <= r.hi && r.hi - r.lo < 0x8000; ++k) {
        if (std::none_of(f.partitions.begin(), f.partitions.end(),
                         [&](const FabricPartition& x) { return x.pkey == k; }))
          notes.push_back({false, kPolicyPKeyNoPartition.code, pos,
                           "pkey " + hex4(k) + " in match rule - partition doesn't exist"});
      }
    }
  }

  CompiledPolicy c;
  c.policy_ = std::move(policy);
  const std::size_t groups = p.groups.size();
  c.words_ = std::max<std::size_t>(1, (groups + 63) / 64);
  std::vector<std::vector<bool>> in;
  in.reserve(groups);
  for (const PortGroup& g : p.groups)
    in.push_back(members(g, f));

  // Signatures: ports with the same groups share one.
  std::map<std::vector<std::uint64_t>, std::uint32_t> sig_ids;
  c.sig_of_port_.resize(f.ports.size());
  std::vector<std::uint64_t> set(c.words_);
  auto intern = [&](const std::vector<std::uint64_t>& s) {
    auto [it, fresh] = sig_ids.emplace(s, c.sig_count_);
    if (fresh) {
      c.sig_groups_.insert(c.sig_groups_.end(), s.begin(), s.end());
      ++c.sig_count_;
    }
    return it->second;
  };
  std::fill(set.begin(), set.end(), 0);
  intern(set);  // signature 0: in no group (ports the SA meets that the view lacks)
  for (std::size_t i = 0; i < f.ports.size(); ++i) {
    std::fill(set.begin(), set.end(), 0);
    for (std::size_t g = 0; g < groups; ++g) {
      if (in[g][i]) set[g / 64] |= std::uint64_t{1} << (g % 64);
    }
    c.sig_of_port_[i] = intern(set);
  }

  // Per rule: which fields it needs, and which signatures pass its source and
  // destination conditions (none listed: every port passes).
  const std::size_t nrules = p.rules.size();
  const std::uint32_t S = c.sig_count_;
  c.rule_needs_.resize(nrules);
  c.src_ok_.assign(nrules * S, 0);
  c.dst_ok_.assign(nrules * S, 0);
  auto sig_in_any = [&](std::uint32_t sig, const std::vector<std::size_t>& gs) {
    if (gs.empty()) return true;
    for (std::size_t g : gs) {
      if ((c.sig_groups_[sig * c.words_ + g / 64] >> (g % 64) & 1u) != 0) return true;
    }
    return false;
  };
  for (std::size_t r = 0; r < nrules; ++r) {
    const MatchRule& m = p.rules[r];
    c.rule_needs_[r] = static_cast<std::uint8_t>(
        (m.qos_class.empty() ? 0 : 1) | (m.service_id.empty() ? 0 : 2) | (m.pkey.empty() ? 0 : 4));
    for (std::uint32_t s = 0; s < S; ++s) {
      c.src_ok_[r * S + s] = sig_in_any(s, m.source_groups) ? 1 : 0;
      c.dst_ok_[r * S + s] = sig_in_any(s, m.destination_groups) ? 1 : 0;
    }
  }

  const std::size_t pairs = static_cast<std::size_t>(S) * S;
  if (pairs <= kMaxTabledPairs) {
    c.tabled_ = true;
    c.cand_begin_.reserve(pairs * 8 + 1);
    for (std::uint32_t a = 0; a < S; ++a) {
      for (std::uint32_t b = 0; b < S; ++b) {
        for (unsigned fields = 0; fields < 8; ++fields) {
          c.cand_begin_.push_back(static_cast<std::uint32_t>(c.cand_.size()));
          for (std::size_t r = 0; r < nrules; ++r) {
            if ((c.rule_needs_[r] & ~fields) != 0) continue;
            if (!c.src_ok_[r * S + a] || !c.dst_ok_[r * S + b]) continue;
            c.cand_.push_back(static_cast<std::uint32_t>(r));
            if (c.rule_needs_[r] == 0) break;  // always matches: nothing after it counts
          }
        }
      }
    }
    c.cand_begin_.push_back(static_cast<std::uint32_t>(c.cand_.size()));
  }
  return c;
}

}  // namespace ibsm::qos_policy
