// qos-setup as port overrides (policy_setup.hpp).
#include "sm/qos/policy_setup.hpp"

#include <optional>
#include <unordered_map>

#include "qos_policy/fabric_view.hpp"
#include "qos_policy/setup.hpp"

namespace ibsm::sm::qos {

namespace {

using qos_policy::kNoPort;

std::uint64_t key(NodeIndex i, PortNum p) {
  return (std::uint64_t{i} << 8) | p;
}

void fill(VlArbList& into, const std::vector<std::pair<std::uint64_t, std::uint64_t>>& pairs) {
  into = {};
  for (std::size_t k = 0; k < pairs.size() && k < into.size(); ++k)
    into[k] = {static_cast<std::uint8_t>(pairs[k].first),
               static_cast<std::uint8_t>(pairs[k].second)};
}

class PolicySetup final : public PortOverrides {
 public:
  PolicySetup(qos_policy::CompiledPolicy compiled, std::vector<std::vector<std::uint32_t>> self,
              std::vector<qos_policy::CompileNote>& notes)
      : compiled_(std::move(compiled)), setup_(compiled_, notes), self_(std::move(self)) {}

  const qos_policy::Setup& setup() const { return setup_; }
  std::uint32_t self(NodeIndex i, PortNum p) const {
    return i < self_.size() && p < self_[i].size() ? self_[i][p] : kNoPort;
  }
  void set_vlarb(NodeIndex i, PortNum p, const ClassConfig& c) { vlarb_[key(i, p)] = c; }
  void set_peers(std::vector<std::vector<std::uint32_t>> peer) { peer_ = std::move(peer); }

  const ClassConfig* vlarb(NodeIndex node, PortNum port) const override {
    auto it = vlarb_.find(key(node, port));
    return it == vlarb_.end() ? nullptr : &it->second;
  }
  const std::array<std::uint8_t, 16>* sl2vl(NodeIndex node, PortNum in,
                                            PortNum out) const override {
    if (!setup_.has_sl2vl()) return nullptr;
    const std::uint32_t me = self(node, out);
    const bool sw = node < switch_.size() && switch_[node];
    const qos_policy::Sl2VlScope* s =
        sw ? setup_.sl2vl_switch(me, in, peer(node, in), out, peer(node, out))
           : setup_.sl2vl_end_port(me);
    return s == nullptr ? nullptr : &s->table;
  }
  bool per_input(NodeIndex) const override { return setup_.has_sl2vl(); }

  std::vector<bool> switch_;

 private:
  std::uint32_t peer(NodeIndex i, PortNum p) const {
    return i < peer_.size() && p < peer_[i].size() ? peer_[i][p] : kNoPort;
  }
  qos_policy::CompiledPolicy compiled_;
  qos_policy::Setup setup_;
  std::vector<std::vector<std::uint32_t>> self_;  // [node][port] -> holder in the view
  std::vector<std::vector<std::uint32_t>> peer_;  // [node][port] -> holder at the link's end
  std::unordered_map<std::uint64_t, ClassConfig> vlarb_;
};

}  // namespace

std::shared_ptr<const PortOverrides> policy_setup(const Fabric& f, const QosConfig& base,
                                                  std::shared_ptr<const qos_policy::Policy> policy,
                                                  const partitions::ResolvedConfig& partitions,
                                                  const partitions::MembershipResult& membership,
                                                  std::vector<qos_policy::CompileNote>& notes) {
  if (!policy || (policy->vlarb.empty() && policy->sl2vl.empty())) return nullptr;
  // The view: one entry per switch (its ports share its GUID), one per CA/router port.
  qos_policy::FabricView view;
  std::vector<std::vector<std::uint32_t>> self(f.size());
  std::vector<bool> is_switch(f.size(), false);
  for (NodeIndex i = 0; i < f.size(); ++i) {
    const Node& n = f.node(i);
    self[i].assign(n.ports.size(), kNoPort);
    auto add = [&](Guid guid, std::vector<std::uint8_t> nums, bool sm) {
      qos_policy::FabricPort p;
      p.guid = guid;
      p.node_type = n.is_switch()                        ? qos_policy::kTypeSwitch
                    : n.type() == mad::NodeType::kRouter ? qos_policy::kTypeRouter
                                                         : qos_policy::kTypeCa;
      p.node_desc = n.description;
      p.port_nums = std::move(nums);
      p.is_sm_port = sm;
      view.ports.push_back(std::move(p));
      return static_cast<std::uint32_t>(view.ports.size() - 1);
    };
    if (n.is_switch()) {
      is_switch[i] = true;
      std::vector<std::uint8_t> nums;
      for (unsigned k = 0; k < n.ports.size(); ++k)
        nums.push_back(static_cast<std::uint8_t>(k));
      const std::uint32_t h = add(n.guid(), nums, f.sm_node == i);
      std::fill(self[i].begin(), self[i].end(), h);
      continue;
    }
    for (const Port& p : n.ports) {
      if (p.num == 0 || !p.present) continue;
      self[i][p.num] = add(p.guid, {p.num}, f.sm_node == i && f.sm_port == p.num);
    }
  }
  qos_policy::add_partitions(view, partitions, membership);
  auto compiled = qos_policy::compile(policy, view, notes);
  if (!compiled) return nullptr;

  std::vector<std::vector<std::uint32_t>> peer(f.size());
  for (NodeIndex i = 0; i < f.size(); ++i) {
    const Node& n = f.node(i);
    peer[i].assign(n.ports.size(), kNoPort);
    for (const Port& p : n.ports) {
      if (p.num == 0 || p.peer == kNoNode || !p.link_up()) continue;
      if (p.peer < self.size() && p.peer_port < self[p.peer].size())
        peer[i][p.num] = self[p.peer][p.peer_port];
    }
  }
  auto out = std::make_shared<PolicySetup>(std::move(*compiled), self, notes);
  out->switch_ = is_switch;
  if (out->setup().has_vlarb()) {
    for (NodeIndex i = 0; i < f.size(); ++i) {
      const Node& n = f.node(i);
      for (const Port& p : n.ports) {
        if (!p.present) continue;
        const std::uint32_t me = self[i][p.num];
        // `across` covers switch ports facing the group; an end port faces no one.
        const std::uint32_t other = n.is_switch() && p.num != 0 ? peer[i][p.num] : kNoPort;
        const qos_policy::VlArbScope* s = out->setup().vlarb(me, other);
        if (s == nullptr) continue;
        ClassConfig c = base.of(port_class(n, p.num));
        if (!s->high.empty()) fill(c.vlarb_high, s->high);
        if (!s->low.empty()) fill(c.vlarb_low, s->low);
        if (s->high_limit) c.high_limit = static_cast<std::uint8_t>(*s->high_limit);
        out->set_vlarb(i, p.num, c);
      }
    }
  }
  out->set_peers(std::move(peer));
  return out;
}

}  // namespace ibsm::sm::qos
