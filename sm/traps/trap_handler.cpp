// TrapHandler (sm/traps/trap_handler.hpp): acknowledge every trap, filter the repeated
// ones, log security traps, decide the sweep, and disable babbling ports when
// babbling_port_policy asks for it.
#include "sm/traps/trap_handler.hpp"

#include "sm/errors.hpp"

namespace ibsm::sm::traps {

std::string lid_text(const Fabric& f, Lid lid) {
  for (const Node& n : f.nodes()) {
    for (const Port& p : n.ports) {
      if (p.lid == 0 || lid < p.lid || lid >= p.lid + (1u << p.lmc)) continue;
      if (n.display_name().empty()) return fmt::format("LID {}", lid);
      return fmt::format("LID {} ({})", lid, n.display_name());
    }
  }
  return fmt::format("LID {}", lid);
}

TrapDecision TrapHandler::on_trap(const mad::Smp& req, Lid slid, const TrapInputs& in) {
  TrapDecision d;
  // Only a master handles traps; others drop them silently, as OpenSM does.
  if (!in.master) {
    log_->debug("trap from LID {} dropped: not master", slid);
    return d;
  }
  auto notice = mad::decode<mad::Notice>(req.data());
  // IBA 13.4.8.3: a trap is acknowledged with TrapRepress carrying the same notice.
  in.client.respond(req.response(req.data(), mad::Method::kTrapRepress), slid);
  if (!notice.ok()) return d;

  // Traps 128 and 144 are never suppressed: their notices name only the issuer, so every
  // link change of a switch (or every announcement of another SM) looks the same, and
  // ignoring the eleventh would hide a real change. A burst of them still costs one heavy
  // sweep (they only ask for one), and 144 has its own rate limit (kSmTrapGap).
  if (is_port_error_trap(*notice))
    d.port_error = TrapDecision::PortError{notice->details_lid(), notice->details[4]};
  const bool state_change = notice->trap_number == 128 || notice->trap_number == 144;
  const TrapFilter::Verdict v =
      state_change ? TrapFilter::Verdict{}
                   : trap_filter_.admit(*notice, slid, in.now, in.options.babbling_port_policy);
  if (v.disable_port) {
    disable_babbling_port(v.port_lid, v.port_num, slid, in);
    return d;
  }
  // Security traps are counted even when repeated: how many wrong keys a port saw is
  // the news (their log lines are rate-limited on their own).
  const auto alarm = describe_security_trap(*notice);
  if (alarm) {
    std::uint64_t held_back = 0;
    if (security_traps_.admit(notice->issuer_lid, notice->trap_number, in.now, held_back))
      log_->warn("{}: {}{}", format_error_id(kErrSecurityTrap), *alarm,
                 held_back ? fmt::format(" ({} more since the last line)", held_back) : "");
  }
  if (v.ignore) {
    if (v.repeats == TrapFilter::kQuietAfter)
      log_->warn("{}: trap {} from {} repeated {} times; ignoring it until it stops",
                 format_error_id(kErrNoisyTraps), notice->trap_number, lid_text(in.fabric, slid),
                 v.repeats);
    return d;
  }
  // Events after the filter: a babbling port does not flood the stream either.
  d.admitted = *notice;
  d.security = alarm.has_value();
  log_->info("trap {} from {} (details LID {})", notice->trap_number,
             lid_text(in.fabric, notice->issuer_lid), notice->details_lid());
  if (in.options.sweep_on_trap) {
    // 128: link state change; 144: capability/description change; 145: system image GUID.
    if (notice->trap_number == 144) {
      // Trap 144: a capability change, which is how a new or higher SM announces
      // itself (IsSM raised, or its priority). Rate-limited so that a stream of
      // them cannot keep us sweeping.
      if (in.now - last_sm_trap_sweep_ >= kSmTrapGap) {
        last_sm_trap_sweep_ = in.now;
        d.sweep = TrapSweep::kSmTrap;
      } else {
        sm_trap_deferred_ = true;
      }
    } else if (notice->trap_number == 128 || notice->trap_number == 145 || v.sweep) {
      // A port-error trap that just marked its port unhealthy gets one heavy sweep too.
      d.sweep = TrapSweep::kTrap;
      d.full_sweep = notice->trap_number != 128;  // not a link change
    }
  }
  // Port-error traps stay with the SM, as OpenSM keeps them (osm_trap_rcv.c); the rest
  // go to InformInfo subscribers (IBA 13.4.8).
  d.forward = !is_port_error_trap(*notice);
  return d;
}

bool TrapHandler::take_deferred_sm_trap(Clock::TimePoint now) {
  if (!sm_trap_deferred_ || now - last_sm_trap_sweep_ < kSmTrapGap) return false;
  sm_trap_deferred_ = false;
  last_sm_trap_sweep_ = now;
  return true;
}

void TrapHandler::disable_babbling_port(Lid lid, PortNum port, Lid source, const TrapInputs& in) {
  const Fabric& fabric = in.fabric;
  // The port the traps are about: LIDADDR names its node (a switch's port 0 LID or the
  // CA port's), PORTNO the port.
  for (const auto& h : fabric.lid_holders()) {
    const Port& holder = fabric.node(h.node).ports[h.port];
    const auto owns = [&](Lid l) { return l >= holder.lid && l < holder.lid + (1u << holder.lmc); };
    if (!owns(lid)) continue;
    // A port reports its own errors (IBA 14.2.5.1): traps about this node come from
    // its LID. Anything else is forged (any host can send a Trap), and must not be
    // able to switch off somebody else's link.
    if (!owns(source)) {
      log_->warn(
          "{}: LID {} sent {} port-error traps naming LID {} port {}: a node reports only "
          "its own ports, so nothing is disabled",
          format_error_id(kErrBabblingPort), source, TrapFilter::kBabblingThreshold, lid, port);
      return;
    }
    NodeIndex node = h.node;
    const Node* n = &fabric.node(node);
    if (port >= n->ports.size() || !n->ports[port].present) break;
    // As OpenSM: the end of the link nearer the SM, which still answers when the
    // babbling end no longer does.
    const Port* p = &n->ports[port];
    if (p->peer != kNoNode && fabric.node(p->peer).path.hops() < n->path.hops()) {
      port = p->peer_port;
      node = p->peer;
      n = &fabric.node(node);
      p = &n->ports[port];
    }
    mad::PortInfo pi = p->info;
    pi.port_state = mad::PortState::kDown;
    pi.phys_state = mad::PhysState::kDisabled;
    if (!n->is_switch()) {
      pi.lid = p->lid != 0 ? p->lid : pi.lid;
      pi.master_sm_lid = in.sm_lid;
    }
    const std::string where =
        fmt::format("{} port {} (GUID 0x{:016x})", n->display_name(), port, n->info.port_guid);
    log_->error("{}: disabling {}: it sent {} port-error traps in a row",
                format_error_id(kErrBabblingPort), where, TrapFilter::kBabblingThreshold);
    in.client.submit(mad::SmpRequest::set(mad::SmpTarget{n->path}, pi, port),
                     [log = log_, where](const mad::SmpOutcome& o) {
                       if (!o.ok())
                         log->error("{}: disabling {} failed: {}",
                                    format_error_id(kErrBabblingPort), where,
                                    o.failure != nullptr ? o.failure->detail : "?");
                     });
    return;
  }
  log_->warn("{}: LID {} port {} sent too many port-error traps, but the SM knows no such port",
             format_error_id(kErrBabblingPort), lid, port);
}

}  // namespace ibsm::sm::traps
