// Link and port settings as a step of the heavy sweep: the PortInfo Sets (IBA 14.2.5.6)
// that give every port its LID, SM fields, negotiated link parameters, M_Key and next
// state, one pass per target state (Armed, then Active). What each port should hold is
// sm/links/port_config.hpp's pure rule; this sends the Sets that differ, node by node as the
// SMP window takes them, reads back a port whose Set was rejected, and remembers the
// ports that ignore fields they were sent (ibsim) so they are not asked again.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "common/log.hpp"
#include "conf/options.hpp"
#include "sm/links/link_settings.hpp"
#include "sm/links/port_config.hpp"
#include "sm/mkey/key_manager.hpp"
#include "sm/qos/qos_config.hpp"
#include "sm/sweep/sweep_context.hpp"

namespace ibsm::sm::links {

// A Set that writes a new M_Key into port `port` was accepted: from now on requests
// to that port must carry `key` (sm/mkey/).
using KeyAccepted = std::function<void(Guid port, std::uint64_t key)>;

// One pass of program(): what it moves the ports towards, and the settings besides the
// options that decide the PortInfo.
struct PortPass {
  mad::PortState target = mad::PortState::kArmed;
  // The M_Key round before the rest: CA/router ports and switch ports 0 only.
  bool key_holders_only = false;
  // QoS (VLHighLimit, max_vls); null or disabled: untouched. Read while the pass's
  // Sets are made, so it must stay valid until the client is drained.
  const qos::QosConfig* qos = nullptr;
  mkey::MkeySettings mkey;   // managed(): the key, protection and lease are written
  KeyAccepted key_accepted;  // may be empty
};

// The PortPolicy of a pass, from the options (pure): SM LID, subnet prefix, timers,
// link settings, client reregistration (first sweep as master, Armed pass, unless
// no_clients_rereg), the QoS config and the M_Key fields when the key is managed.
// `untaken` is left null: the programmer fills in its own.
PortPolicy port_policy(const conf::Options& o, Lid sm_lid, bool first_master_sweep,
                       const PortPass& pass);

class PortProgrammer {
 public:
  explicit PortProgrammer(Logger link_log) : log_(std::move(link_log)) {}

  // Queues the PortInfo Sets of `pass` on ctx.client as a feed (the wire works while
  // the next nodes' Sets are made); only the nodes of ctx.only_nodes when set. The
  // answers update ctx.fabric (the GetResp carries the port's new PortInfo); failures
  // go to ctx.report and ctx.failed(). Drain the client before the model is read.
  void program(const SweepContext& ctx, const PortPass& pass);

  // Ports that ignored link fields they were sent; kept across sweeps.
  const UntakenPorts& untaken() const { return untaken_; }

 private:
  struct Pass;  // one program() call, shared by its answers
  void program_node(const std::shared_ptr<const Pass>& pass, NodeIndex i);

  Logger log_;
  UntakenPorts untaken_;
};

}  // namespace ibsm::sm::links
