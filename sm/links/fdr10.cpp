#include "sm/links/fdr10.hpp"

#include <memory>
#include <string>

namespace ibsm::sm {

namespace {

using mad::SmpOutcome;
using mad::SmpRequest;

// A CA answers for the port an SMP enters by: address its port through the peer.
mad::DrPath port_path(const Fabric& f, NodeIndex n, PortNum port) {
  const Node& node = f.node(n);
  const Port& p = node.ports[port];
  if (!node.is_switch() && p.peer != kNoNode) {
    if (auto ext = f.node(p.peer).path.extended(p.peer_port)) return *ext;
  }
  return node.path;
}

// What the last sweep knew of the port, if it still holds: a port in Init has
// trained again since (or is new), and is read again.
std::optional<mad::MlnxExtPortInfo> still_known(const Fabric& last, const Node& node,
                                                const Port& p) {
  if (p.info.port_state == mad::PortState::kInit) return std::nullopt;
  if (p.mlnx_ext) return p.mlnx_ext;  // a targeted sweep's model carries it
  const NodeIndex before = last.find(node.guid());
  if (before == kNoNode || last.node(before).ports.size() <= p.num) return std::nullopt;
  return last.node(before).ports[p.num].mlnx_ext;
}

// One heavy sweep's pass, shared by the answers still in flight.
struct Pass {
  Fabric& f;
  Fdr10Mode mode;
  mad::SmpClient& client;
  Logger log;
};
using PassPtr = std::shared_ptr<const Pass>;

// What to keep of an answer: the port's attribute; an empty one (no FDR10) when the
// port refused the request with a status, so it is not asked again until its link
// comes up again; nothing when there was no usable answer (asked again next sweep).
std::optional<mad::MlnxExtPortInfo> answer(const Pass& pass, const SmpOutcome& o, NodeIndex n,
                                           PortNum port, const char* what) {
  if (o.ok()) {
    if (auto epi = mad::decode<mad::MlnxExtPortInfo>(o.response->data()); epi.ok()) return *epi;
  }
  pass.log->debug("FDR10: no usable answer to {} MLNXExtendedPortInfo of port {} of 0x{:016x}{}",
                  what, port, pass.f.node(n).guid(),
                  o.failure != nullptr ? ": " + o.failure->detail : std::string());
  if (o.failure != nullptr && o.failure->kind == mad::SmpFailure::Kind::kStatus)
    return mad::MlnxExtPortInfo{};
  return std::nullopt;
}

void decide(const PassPtr& pass, NodeIndex n, PortNum port, const mad::MlnxExtPortInfo& cur) {
  pass->f.node(n).ports[port].mlnx_ext = cur;
  const auto want = fdr10_set(pass->mode, cur);
  if (!want) return;
  pass->log->debug("FDR10: {} on port {} of 0x{:016x}",
                   pass->mode == Fdr10Mode::kEnable ? "enabling" : "disabling", port,
                   pass->f.node(n).guid());
  pass->client.submit(SmpRequest::set(port_path(pass->f, n, port), *want, port),
                      [pass, n, port](const SmpOutcome& o) {
                        // The GetResp carries what the port holds now.
                        if (auto epi = answer(*pass, o, n, port, "Set"))
                          pass->f.node(n).ports[port].mlnx_ext = *epi;
                      });
}

void read(const PassPtr& pass, NodeIndex n, PortNum port) {
  pass->client.submit(SmpRequest::get<mad::MlnxExtPortInfo>(port_path(pass->f, n, port), port),
                      [pass, n, port](const SmpOutcome& o) {
                        if (auto epi = answer(*pass, o, n, port, "Get"))
                          decide(pass, n, port, *epi);
                      });
}

}  // namespace

std::optional<mad::MlnxExtPortInfo> fdr10_set(Fdr10Mode mode, const mad::MlnxExtPortInfo& cur) {
  if (mode == Fdr10Mode::kOff || (cur.link_speed_supported & mad::kMlnxSpeedFdr10) == 0)
    return std::nullopt;
  const bool on = (cur.link_speed_enabled & mad::kMlnxSpeedFdr10) != 0;
  if (on == (mode == Fdr10Mode::kEnable)) return std::nullopt;
  mad::MlnxExtPortInfo want = cur;
  want.state_change_enable = 1;
  want.link_speed_enabled = mode == Fdr10Mode::kEnable ? mad::kMlnxSpeedFdr10 : 0;
  return want;
}

void program_fdr10(Fabric& f, const Fabric& last, Fdr10Mode mode, mad::SmpClient& client,
                   const Logger& log) {
  if (mode == Fdr10Mode::kOff) return;  // no vendor MADs at all
  const auto pass = std::make_shared<const Pass>(Pass{f, mode, client, log});
  for (NodeIndex n = 0; n < f.size(); ++n) {
    const Node& node = f.node(n);
    if (!mad::has_mlnx_ext_port_info(node.info.vendor_id, node.info.device_id)) continue;
    for (const Port& p : node.ports) {
      if (!p.link_up() || p.peer == kNoNode) continue;
      if (auto known = still_known(last, node, p))
        decide(pass, n, p.num, *known);
      else
        read(pass, n, p.num);
    }
  }
}

}  // namespace ibsm::sm
