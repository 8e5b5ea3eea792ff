// A parsed policy applied to one fabric: which ports each port group holds, and the
// match rules precomputed per pair of port "signatures" (the set of groups a port is
// in), so that a PathRecord query costs two array reads and a short candidate list
// instead of a walk over every rule (OpenSM __qos_policy_get_match_rule_by_params
// tests each rule's groups for each query).
//
// A rule's source and destination conditions depend only on the two ports' groups;
// its QoS class, ServiceID and P_Key conditions apply only when the query carries the
// field (OpenSM: a rule with service-id never matches a query without a ServiceID). So
// for each (source signature, destination signature, which of the three fields the
// query has) the rules that can still match are listed in file order, the list cut
// after the first rule with no field condition (it always matches). A query then
// tests only the fields of the listed rules. Built once per policy and fabric
// (heavy sweep, SIGHUP); pure.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "qos_policy/model.hpp"

namespace ibsm::qos_policy {

// A port as port groups see it: the LID-holding port (an end port, or port 0 of a
// switch), as OpenSM's port GUID table holds them.
struct FabricPort {
  std::uint64_t guid = 0;
  std::uint8_t node_type = kTypeCa;     // kTypeCa / kTypeSwitch / kTypeRouter
  std::string node_desc;                // NodeDescription, for port-name
  std::vector<std::uint8_t> port_nums;  // physical ports it stands for (switch: all)
  bool is_sm_port = false;
  std::vector<std::uint16_t> partitions;  // 15-bit P_Keys of which it is a member
};

struct FabricPartition {
  std::string name;
  std::uint16_t pkey = 0;  // 15 bits
  unsigned full_members = 0;
};

struct FabricView {
  std::vector<FabricPort> ports;
  std::vector<FabricPartition> partitions;
};

// A message about the policy on this fabric (file position of the item concerned).
struct CompileNote {
  bool error = false;  // true: the policy cannot apply to this fabric
  std::uint16_t id = 0;
  SourcePos pos;
  std::string message;
};

// The query fields rules can test.
struct MatchQuery {
  std::optional<std::uint16_t> qos_class;
  std::optional<std::uint64_t> service_id;
  std::optional<std::uint16_t> pkey;
};

class CompiledPolicy {
 public:
  static constexpr std::uint32_t kNoRule = UINT32_MAX;

  // The rule a query from port `src` to port `dst` (indexes into FabricView::ports)
  // matches, kNoRule when none does (then the default level applies).
  std::uint32_t match_rule(std::uint32_t src, std::uint32_t dst, const MatchQuery& q) const;
  // The level that applies: the matched rule's, else the default level.
  const Level& match(std::uint32_t src, std::uint32_t dst, const MatchQuery& q) const {
    const std::uint32_t r = match_rule(src, dst, q);
    return policy_->levels[r == kNoRule ? policy_->default_level : policy_->rules[r].level];
  }

  const Policy& policy() const { return *policy_; }
  bool in_group(std::uint32_t port, std::size_t group) const;
  std::uint32_t signatures() const { return sig_count_; }
  std::size_t candidate_entries() const { return cand_.size(); }

  friend std::optional<CompiledPolicy> compile(std::shared_ptr<const Policy> policy,
                                               const FabricView& fabric,
                                               std::vector<CompileNote>& notes);

 private:
  std::shared_ptr<const Policy> policy_;
  std::uint32_t sig_count_ = 0;
  std::size_t words_ = 0;  // 64-bit words per group set
  std::vector<std::uint32_t> sig_of_port_;
  std::vector<std::uint64_t> sig_groups_;  // sig_count_ x words_
  // Candidate lists, [(src_sig * sig_count_ + dst_sig) * 8 + fields] -> [begin, end).
  std::vector<std::uint32_t> cand_begin_;
  std::vector<std::uint32_t> cand_;
  bool tabled_ = false;  // false: too many signature pairs; rules are scanned instead
  std::vector<std::uint8_t> rule_needs_;       // bit 0 qos-class, 1 service-id, 2 pkey
  std::vector<std::uint8_t> src_ok_, dst_ok_;  // [rule * sig_count_ + sig]
};

// Resolves the groups against the fabric. nullopt (with an error note) when an IPoIB
// rule's partition does not exist or has fewer than two full members (OpenSM refuses
// the policy then). Warnings go to `notes` too.
std::optional<CompiledPolicy> compile(std::shared_ptr<const Policy> policy,
                                      const FabricView& fabric, std::vector<CompileNote>& notes);

}  // namespace ibsm::qos_policy
