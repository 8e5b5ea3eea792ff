// Heavy-sweep discovery: a directed-route walk of the subnet from the SM's port.
//
// Starting with NodeInfo at hop 0, every newly found node is read (NodeDescription,
// SwitchInfo, PortInfo of its ports) and every switch port whose link is up and
// whose peer is still unknown is probed with NodeInfo one hop further. Nodes are
// identified by GUID, so loops and parallel links are recorded as links and never
// walked twice. Only switches forward directed-route SMPs (IBA 14.2.2), so paths
// are only extended through switches (and from the SM's own port).
//
// PortInfo Gets carry SMSupportsExtendedSpeeds (attribute modifier bit 31) where the
// port advertises extended speeds: a switch's external ports are read after its port
// 0, whose CapabilityMask speaks for them; a port that answered without the bit but
// advertises them is read again with it, since some devices fill the extended-speed
// fields only then (OpenSM issue 38 / PR 39). Contradictory speed fields are logged
// (IBSM-1010) and the port counts with what they agree on.
//
// All requests go through the SmpClient at once; the window keeps the wire busy.
// Discovery is done when the client is idle. A node that does not answer or answers
// garbage is reported with its DR path and left out; the rest of the fabric is
// discovered regardless.
#pragma once

#include <functional>

#include "common/log.hpp"
#include "mad/smp_client.hpp"
#include "names/node_name_map.hpp"
#include "sm/fabric/fabric.hpp"
#include "sm/sweep/sweep_report.hpp"

namespace ibsm::sm {

class Discovery {
 public:
  Discovery(Fabric& fabric, mad::SmpClient& client, SweepReport& report, Logger log)
      : fabric_(fabric), client_(client), report_(report), log_(std::move(log)) {}

  // Queues the first request; the walk continues from the response callbacks.
  void start();
  // After the walk: logs what was only counted (IBSM-1010 beyond the first lines).
  void finish();

  // Called with every PortInfo read (the SM learns M_Keys from them) and with every
  // request that failed (the SM adds its M_Key hint), after discovery's own handling.
  using PortListener = std::function<void(const Node& node, PortNum port)>;
  using FailureListener = std::function<void(const mad::SmpOutcome&)>;
  void set_port_listener(PortListener l) { on_port_ = std::move(l); }
  void set_failure_listener(FailureListener l) { on_failure_ = std::move(l); }
  // Names nodes (Node::name) and the log lines about them; without it they go by
  // their NodeDescription.
  void set_names(std::shared_ptr<const names::NodeNameMap> names) { names_ = std::move(names); }
  // The last sweep's fabric: a CA port it knew to advertise extended speeds is read
  // with SMSupportsExtendedSpeeds at once, which saves the second Get (the answer
  // still decides: a port that no longer advertises them is taken as it answers).
  void set_previous(const Fabric* previous) { previous_ = previous; }
  // Fabric health's no_discover (sm/health/): a switch port this names (node GUID,
  // port) is read, but nothing behind it is probed.
  using StopAt = std::function<bool(Guid node_guid, PortNum port)>;
  void set_stop_at(StopAt stop) { stop_at_ = std::move(stop); }

 private:
  void on_node_info(const mad::DrPath& path, NodeIndex from, PortNum from_port,
                    const mad::SmpOutcome& o);
  void read_new_node(NodeIndex idx);
  // PortInfo of one port; `extended_speeds` sets SMSupportsExtendedSpeeds (bit 31).
  void read_port(NodeIndex idx, PortNum port, bool extended_speeds = false);
  void read_external_ports(NodeIndex idx);
  bool known_extended(const Node& node, PortNum port) const;
  void on_port_info(NodeIndex idx, PortNum port, const mad::SmpOutcome& o);
  void probe(NodeIndex idx, PortNum port);
  // Fabric health's illegal condition: a PortPhysicalState no value of IBA defines, or a
  // port up with a LinkWidthActive of more than one width (or none); logged and counted in
  // the report, the port kept as read.
  void check_values(const Node& node, PortNum port);
  // `about`: the node the request went to, or (NodeInfo) the node it was sent through
  // with `via_port`; named in the message when known.
  void problem(ErrorId id, const mad::SmpOutcome& o, const std::string& what,
               NodeIndex about = kNoNode, PortNum via_port = 0);
  void name_node(Node& node) const;

  Fabric& fabric_;
  mad::SmpClient& client_;
  SweepReport& report_;
  Logger log_;
  const Fabric* previous_ = nullptr;
  StopAt stop_at_;
  PortListener on_port_;
  FailureListener on_failure_;
  std::shared_ptr<const names::NodeNameMap> names_;
  // IBSM-1010: a fabric whose every port shows the same contradiction (ibsim, or one
  // firmware everywhere) would log a line per port; the first few are logged, the rest
  // counted for finish().
  static constexpr unsigned kSpeedFieldLines = 8;
  unsigned speed_field_lines_ = 0;
  std::size_t speed_field_more_ = 0;
};

}  // namespace ibsm::sm
