// RoCE lossless settings ([roce.dcb]) through iproute2's dcb: one resource per part
// ("dcb eth2 pfc", "... ets", "... dscp", "... trust"), each planned from what dcb read
// (Observed::dcb) and skipped with the reason where the NIC or dcb cannot do it. Not
// persistent across a driver reload: re-applied by the boot/hotplug unit.
#include <algorithm>

#include "agent/errors.hpp"
#include "agent/planner.hpp"

namespace ibsm::agent {
namespace {

std::string list(const std::vector<int>& v) {
  std::string s;
  for (int x : v)
    s += (s.empty() ? "" : ",") + std::to_string(x);
  return s.empty() ? "none" : s;
}

std::vector<std::string> indexed(const std::vector<int>& v) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.size(); ++i)
    out.push_back(std::to_string(i) + ":" + std::to_string(v[i]));
  return out;
}

struct Part {
  const PlanContext& ctx;
  Plan& plan;
  std::string netdev;
  const DcbState* state;  // null: not read

  std::string resource(const char* part) const { return "dcb " + netdev + " " + part; }

  // Registers the part; false (and skipped) when it cannot be planned.
  bool usable(const char* part, const std::string& unsupported) {
    plan.resources.push_back(resource(part));
    std::string why = !state ? "DCB not read: a --root tree has no NIC to ask" : unsupported;
    if (why.empty()) return true;
    plan.skipped.push_back({resource(part), why});
    return false;
  }

  // `undo`: the commands that put back what dcb showed, for a rollback.
  void run(const char* part, std::vector<std::string> argv, std::string reason,
           std::vector<std::vector<std::string>> undo) {
    Action a;
    a.kind = ActionKind::kRun;
    a.resource = resource(part);
    a.argv = std::move(argv);
    a.reason = std::move(reason);
    a.undo = std::move(undo);
    plan.actions.push_back(std::move(a));
  }
};

void plan_pfc(Part& p, const std::vector<int>& want) {
  if (!p.usable("pfc", p.state ? p.state->pfc_unsupported : "")) return;
  std::vector<bool> on(8, false);
  for (int prio : want)
    on[static_cast<std::size_t>(prio)] = true;
  if (p.state->pfc == on) return;
  std::vector<int> have;
  for (std::size_t i = 0; i < p.state->pfc.size(); ++i)
    if (p.state->pfc[i]) have.push_back(static_cast<int>(i));
  std::vector<std::string> argv{"dcb", "pfc", "set", "dev", p.netdev, "prio-pfc"};
  for (std::size_t i = 0; i < 8; ++i)
    argv.push_back(std::to_string(i) + (on[i] ? ":on" : ":off"));
  std::vector<std::vector<std::string>> undo;
  if (p.state->pfc.size() == 8) {
    undo.push_back({"dcb", "pfc", "set", "dev", p.netdev, "prio-pfc"});
    for (std::size_t i = 0; i < 8; ++i)
      undo.back().push_back(std::to_string(i) + (p.state->pfc[i] ? ":on" : ":off"));
  }
  p.run("pfc", std::move(argv),
        "PFC on priorities " + (p.state->pfc.empty() ? std::string("unknown") : list(have)) +
            ", the node file wants " + list(want),
        std::move(undo));
}

void plan_ets(Part& p, const DcbSettings& want) {
  if (!p.usable("ets", p.state ? p.state->ets_unsupported : "")) return;
  std::vector<std::string> argv{"dcb", "ets", "set", "dev", p.netdev};
  std::string why;
  if (want.tc_bw) {
    bool all_ets =
        p.state->tc_tsa.size() == 8 && std::all_of(p.state->tc_tsa.begin(), p.state->tc_tsa.end(),
                                                   [](const std::string& t) { return t == "ets"; });
    if (!all_ets || p.state->tc_bw != *want.tc_bw) {
      argv.insert(argv.end(), {"tc-tsa", "all:ets", "tc-bw"});
      for (auto& m : indexed(*want.tc_bw))
        argv.push_back(m);
      why = "ETS shares " + list(p.state->tc_bw) + (all_ets ? "" : " (not all TCs ets)");
    }
  }
  if (want.prio_tc && p.state->prio_tc != *want.prio_tc) {
    argv.push_back("prio-tc");
    for (auto& m : indexed(*want.prio_tc))
      argv.push_back(m);
    why += (why.empty() ? "" : ", ") + std::string("priority->TC ") + list(p.state->prio_tc);
  }
  if (why.empty()) return;
  // Back to what dcb showed, where it showed every TC.
  std::vector<std::vector<std::string>> undo;
  auto known = [](const std::vector<int>& v) {
    return v.size() == 8 && std::none_of(v.begin(), v.end(), [](int x) { return x < 0; });
  };
  std::vector<std::string> back{"dcb", "ets", "set", "dev", p.netdev};
  if (want.tc_bw && known(p.state->tc_bw) && p.state->tc_tsa.size() == 8 &&
      std::none_of(p.state->tc_tsa.begin(), p.state->tc_tsa.end(),
                   [](const std::string& t) { return t.empty(); })) {
    back.push_back("tc-tsa");
    for (std::size_t i = 0; i < 8; ++i)
      back.push_back(std::to_string(i) + ":" + p.state->tc_tsa[i]);
    back.push_back("tc-bw");
    for (auto& m : indexed(p.state->tc_bw))
      back.push_back(m);
  }
  if (want.prio_tc && known(p.state->prio_tc)) {
    back.push_back("prio-tc");
    for (auto& m : indexed(p.state->prio_tc))
      back.push_back(m);
  }
  if (back.size() > 5) undo.push_back(std::move(back));
  p.run("ets", std::move(argv), why + " differ from the node file", std::move(undo));
}

void plan_dscp(Part& p, const std::vector<std::pair<int, int>>& want) {
  if (!p.usable("dscp", p.state ? p.state->app_unsupported : "")) return;
  std::vector<std::string> argv{"dcb", "app", "replace", "dev", p.netdev, "dscp-prio"};
  std::string why;
  for (const auto& [dscp, prio] : want) {
    auto it = p.state->dscp_prio.find(dscp);
    if (it != p.state->dscp_prio.end() && it->second == prio) continue;
    argv.push_back(std::to_string(dscp) + ":" + std::to_string(prio));
    why += (why.empty() ? "DSCP " : ", ") + std::to_string(dscp) + " -> " +
           (it == p.state->dscp_prio.end() ? std::string("unmapped") : std::to_string(it->second));
  }
  if (why.empty()) return;
  // Back: a DSCP that was mapped gets its priority again, one that was not is deleted.
  std::vector<std::string> restore{"dcb", "app", "replace", "dev", p.netdev, "dscp-prio"};
  std::vector<std::string> remove{"dcb", "app", "del", "dev", p.netdev, "dscp-prio"};
  for (const auto& [dscp, prio] : want) {
    auto it = p.state->dscp_prio.find(dscp);
    if (it == p.state->dscp_prio.end())
      remove.push_back(std::to_string(dscp) + ":" + std::to_string(prio));
    else if (it->second != prio)
      restore.push_back(std::to_string(dscp) + ":" + std::to_string(it->second));
  }
  std::vector<std::vector<std::string>> undo;
  if (restore.size() > 6) undo.push_back(std::move(restore));
  if (remove.size() > 6) undo.push_back(std::move(remove));
  p.run("dscp", std::move(argv), why, std::move(undo));
}

void plan_trust(Part& p, DcbTrust want) {
  if (!p.usable("trust", p.state ? p.state->trust_unsupported : "")) return;
  const std::string field = want == DcbTrust::kDscp ? "dscp" : "pcp";
  if (p.state->trust == std::vector<std::string>{field}) return;
  std::string have;
  for (const auto& t : p.state->trust)
    have += (have.empty() ? "" : " ") + t;
  std::vector<std::vector<std::string>> undo;
  if (!p.state->trust.empty()) {
    undo.push_back({"dcb", "apptrust", "set", "dev", p.netdev, "order"});
    undo.back().insert(undo.back().end(), p.state->trust.begin(), p.state->trust.end());
  }
  p.run("trust", {"dcb", "apptrust", "set", "dev", p.netdev, "order", field},
        "trust order is " + (have.empty() ? std::string("empty") : have) + ", not " + field,
        std::move(undo));
}

}  // namespace

void plan_dcb(const PlanContext& ctx, Plan& plan) {
  for (const RoceSetting& r : ctx.config.roce) {
    if (!r.dcb) continue;
    const RdmaDevice* d = ctx.observed.device(r.device);
    const PortState* port = d ? d->port(r.port) : nullptr;
    if (!port || port->infiniband()) continue;  // plan_roce reports these
    auto netdevs = ctx.observed.netdevs_on(*d, *port);
    if (netdevs.empty()) {
      plan.errors.push_back(Error{kNetdevNotFound, "roce " + r.device + "/" +
                                                       std::to_string(r.port) +
                                                       ".dcb: no netdev behind the port to "
                                                       "configure (no GID names one)"});
      continue;
    }
    auto it = ctx.observed.dcb.find(netdevs.front());
    Part p{ctx, plan, netdevs.front(), it == ctx.observed.dcb.end() ? nullptr : &it->second};
    if (r.dcb->pfc) plan_pfc(p, *r.dcb->pfc);
    if (r.dcb->prio_tc || r.dcb->tc_bw) plan_ets(p, *r.dcb);
    if (!r.dcb->dscp_prio.empty()) plan_dscp(p, r.dcb->dscp_prio);
    if (r.dcb->trust) plan_trust(p, *r.dcb->trust);
  }
}

}  // namespace ibsm::agent
