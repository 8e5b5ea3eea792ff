// The PortInfo Sets of a heavy sweep's passes (sm/links/port_programmer.hpp).
#include "sm/links/port_programmer.hpp"

#include <optional>

#include "mad/attr/port_info.hpp"
#include "sm/errors.hpp"
#include "sm/sweep/sweep_report.hpp"

namespace ibsm::sm::links {

using mad::SmpOutcome;
using mad::SmpRequest;

PortPolicy port_policy(const conf::Options& o, Lid sm_lid, bool first_master_sweep,
                       const PortPass& pass) {
  PortPolicy policy;
  policy.sm_lid = sm_lid;
  policy.subnet_prefix = o.subnet_prefix;
  policy.max_op_vls = o.max_op_vls;
  policy.subnet_timeout = o.subnet_timeout;
  policy.master_sm_sl = o.sm_sl;
  policy.no_clients_rereg = o.no_clients_rereg;
  policy.head_of_queue_lifetime = o.head_of_queue_lifetime;
  policy.leaf_head_of_queue_lifetime = o.leaf_head_of_queue_lifetime;
  policy.vl_stall_count = o.vl_stall_count;
  policy.leaf_vl_stall_count = o.leaf_vl_stall_count;
  policy.link = link_settings(o);
  policy.client_reregister =
      first_master_sweep && !o.no_clients_rereg && pass.target == mad::PortState::kArmed;
  policy.qos = pass.qos;
  if (pass.mkey.managed())
    policy.mkey = PortMkey{pass.mkey.m_key, pass.mkey.protect_bits, pass.mkey.lease_period};
  return policy;
}

struct PortProgrammer::Pass {
  Fabric& f;
  SweepReport& report;
  mad::SmpClient& client;
  std::function<void(const SmpOutcome&)> on_failure;
  KeyAccepted key_accepted;
  PortPolicy policy;
  mad::PortState target;
  bool key_holders_only;

  void failed(const SmpOutcome& o) const {
    if (on_failure) on_failure(o);
  }
};

void PortProgrammer::program(const SweepContext& ctx, const PortPass& pass) {
  PortPolicy policy = port_policy(ctx.options, ctx.sm_lid, ctx.first_master_sweep, pass);
  policy.untaken = &untaken_;
  auto shared = std::make_shared<const Pass>(Pass{ctx.fabric, ctx.report, ctx.client,
                                                  ctx.on_failure, pass.key_accepted, policy,
                                                  pass.target, pass.key_holders_only});
  // A feed, node by node as the window takes them: the wire works while the Sets of
  // the next nodes are worked out (on fattree-2048, 7-13 ms of CPU for 8 000 Sets, in
  // which the wire stood idle when they were all queued first). The Sets of a node go
  // out in the order they are made, after whatever was queued before this call.
  ctx.client.submit_feed(
      [this, shared, only = ctx.only_nodes, i = NodeIndex{0}](mad::SmpClient& client) mutable {
        const Fabric& f = shared->f;
        const std::size_t before = client.queued();
        // A node that needs no Set is passed over in the same call: a feed that adds
        // nothing and says it has more is dropped.
        while (i < f.size() && client.queued() == before) {
          const NodeIndex n = i++;
          if (only && !(*only)[n]) continue;  // a targeted sweep: unchanged node
          program_node(shared, n);
        }
        return i < f.size();
      });
}

void PortProgrammer::program_node(const std::shared_ptr<const Pass>& pass, NodeIndex i) {
  Fabric& f = pass->f;
  mad::SmpClient& client = pass->client;
  const PortPolicy& policy = pass->policy;
  Node& node = f.node(i);
  for (Port& port : node.ports) {
    if (port.num != 0 && port.peer == kNoNode) continue;  // link up, nobody known behind it
    if (pass->key_holders_only && (node.is_switch() ? port.num != 0 : port.num == 0)) continue;
    auto want = desired_port_info(f, i, port.num, policy, pass->target);
    if (!want) continue;
    // A CA answers for the port the SMP enters on: address it through its peer.
    mad::DrPath path = node.path;
    if (!node.is_switch() && port.peer != kNoNode) {
      if (auto ext = f.node(port.peer).path.extended(port.peer_port)) path = *ext;
    }
    const PortNum num = port.num;
    const mad::PortInfo wanted = *want;
    // The key this Set writes, where the port holds one (CA/router port, switch port 0).
    const bool holds_key = node.is_switch() ? num == 0 : num != 0;
    const std::optional<std::uint64_t> new_key =
        policy.mkey && holds_key ? std::optional(wanted.m_key) : std::nullopt;
    const Guid port_guid = port.guid;
    const std::uint32_t mod = port_info_set_modifier(f, i, num);
    const auto send = [this, pass, i, num, path, wanted, new_key, port_guid, mod] {
      pass->client.submit(SmpRequest::set(path, wanted, mod), [this, pass, i, num, path, wanted,
                                                               new_key, port_guid,
                                                               mod](const SmpOutcome& o) {
        Fabric& model = pass->f;
        if (o.ok()) {
          // Requests now carry it.
          if (new_key && pass->key_accepted) pass->key_accepted(port_guid, *new_key);
          // The GetResp of a Set carries the port's new PortInfo.
          if (auto pi = mad::decode<mad::PortInfo>(o.response->data()); pi.ok()) {
            model.node(i).ports[num].info = speeds_checked(model.node(i), num, *pi);
            if (untaken_.note(model.node(i).guid(), num, untaken_port_fields(wanted, *pi)))
              log_->debug("{} port {} ignored fields of its PortInfo Set; not sent again for them",
                          model.node(i).display_name(), num);
          }
          return;
        }
        if (o.failure->kind != mad::SmpFailure::Kind::kStatus) {
          report_failure(log_, &pass->report, kErrProgrammingFailed, o, "PortInfo");
          pass->report.set_failed(model.node(i).guid(), num);
          pass->failed(o);
          return;
        }
        // A rejected Set may be the retry of one that took effect but whose
        // answer was lost: asking for the state the port is already in is an
        // error (IBA 14.2.5.6). Read the port back before calling it a failure.
        pass->client.submit(SmpRequest::get<mad::PortInfo>(path, mod), [this, pass, i, num, wanted](
                                                                           const SmpOutcome& g) {
          auto pi = g.ok() ? mad::decode<mad::PortInfo>(g.response->data())
                           : Result<mad::PortInfo>(fail(kErrProgrammingFailed, "no answer"));
          if (pi.ok() && port_set_took_effect(wanted, *pi)) {
            pass->f.node(i).ports[num].info = speeds_checked(pass->f.node(i), num, *pi);
            return;
          }
          report_failure(log_, &pass->report, kErrProgrammingFailed, g, "PortInfo Set rejected");
          pass->report.set_failed(pass->f.node(i).guid(), num);
        });
      });
    };
    if (!changes_link_and_state(wanted)) {
      send();
      continue;
    }
    // New speeds or widths go first in a Set that leaves the state alone, as OpenSM's
    // NO_CHANGE round does: a port may take them only then (ibsim applies them only
    // in such a Set), and a link that retrains must not lose the state change.
    mad::PortInfo link_first = wanted;
    link_first.port_state = mad::PortState::kNoChange;
    link_first.phys_state = mad::PhysState::kNoChange;
    link_first.client_reregister = false;
    client.submit(SmpRequest::set(path, link_first, mod),
                  [this, pass, send, i, num](const SmpOutcome& o) {
                    if (!o.ok()) {
                      report_failure(log_, &pass->report, kErrProgrammingFailed, o,
                                     "PortInfo Set (link speed/width)");
                      pass->report.set_failed(pass->f.node(i).guid(), num);
                    }
                    send();  // the LID and state go out whatever became of the speeds
                  });
  }
}

}  // namespace ibsm::sm::links
