// The master's handling of Traps (IBA 13.4.8, 14.2.5.1): acknowledge every one, filter
// the repeated ones (sm/trap_filter.hpp), sweep on link and capability changes when
// sweep_on_trap allows, log security traps, forward the rest to InformInfo subscribers,
// and disable babbling ports when babbling_port_policy asks for it.
#include "sm/errors.hpp"
#include "sm/subnet_manager.hpp"

namespace ibsm::sm {

std::string SubnetManager::lid_text(Lid lid) const {
  for (const Node& n : fabric_.nodes()) {
    for (const Port& p : n.ports) {
      if (p.lid == 0 || lid < p.lid || lid >= p.lid + (1u << p.lmc)) continue;
      if (n.display_name().empty()) return fmt::format("LID {}", lid);
      return fmt::format("LID {} ({})", lid, n.display_name());
    }
  }
  return fmt::format("LID {}", lid);
}

void SubnetManager::on_trap(const mad::Smp& req, const mad::IncomingMad& raw) {
  // Only a master handles traps; others drop them silently, as OpenSM does.
  if (state() != mad::SmState::kMaster) {
    trap_log_->debug("trap from LID {} dropped: not master", raw.slid);
    return;
  }
  auto notice = mad::decode<mad::Notice>(req.data());
  // IBA 13.4.8.3: a trap is acknowledged with TrapRepress carrying the same notice.
  client_.respond(req.response(req.data(), mad::Method::kTrapRepress), raw.slid);
  if (!notice.ok()) return;

  // Traps 128 and 144 are never suppressed: their notices name only the issuer, so every
  // link change of a switch (or every announcement of another SM) looks the same, and
  // ignoring the eleventh would hide a real change. A burst of them still costs one heavy
  // sweep (they only set heavy_reason_), and 144 has its own rate limit (kSmTrapGap).
  const bool state_change = notice->trap_number == 128 || notice->trap_number == 144;
  const TrapFilter::Verdict v = state_change ? TrapFilter::Verdict{}
                                             : trap_filter_.admit(*notice, raw.slid, clock_.now(),
                                                                  options_.babbling_port_policy);
  if (v.disable_port) {
    disable_babbling_port(v.port_lid, v.port_num, raw.slid);
    return;
  }
  // Security traps are counted even when repeated: how many wrong keys a port saw is
  // the news (their log lines are rate-limited on their own).
  if (auto alarm = describe_security_trap(*notice)) {
    std::uint64_t held_back = 0;
    if (security_traps_.admit(notice->issuer_lid, notice->trap_number, clock_.now(), held_back))
      trap_log_->warn("{}: {}{}", format_error_id(kErrSecurityTrap), *alarm,
                      held_back ? fmt::format(" ({} more since the last line)", held_back) : "");
  }
  if (v.ignore) {
    if (v.repeats == TrapFilter::kQuietAfter)
      trap_log_->warn("{}: trap {} from {} repeated {} times; ignoring it until it stops",
                      format_error_id(kErrNoisyTraps), notice->trap_number, lid_text(raw.slid),
                      v.repeats);
    return;
  }
  // Events after the filter: a babbling port does not flood the stream either.
  emit(describe_security_trap(*notice) ? ops::EventType::kSecurityTrap : ops::EventType::kTrap,
       {{"trap", static_cast<std::uint64_t>(notice->trap_number)},
        {"issuer_lid", static_cast<std::uint64_t>(notice->issuer_lid)},
        {"source_lid", static_cast<std::uint64_t>(raw.slid)},
        {"details_lid", static_cast<std::uint64_t>(notice->details_lid())}});
  trap_log_->info("trap {} from {} (details LID {})", notice->trap_number,
                  lid_text(notice->issuer_lid), notice->details_lid());
  if (options_.sweep_on_trap) {
    // 128: link state change; 144: capability/description change; 145: system image GUID.
    if (notice->trap_number == 144) {
      // Trap 144: a capability change, which is how a new or higher SM announces
      // itself (IsSM raised, or its priority). Rate-limited so that a stream of
      // them cannot keep us sweeping.
      if (clock_.now() - last_sm_trap_sweep_ >= kSmTrapGap) {
        last_sm_trap_sweep_ = clock_.now();
        if (heavy_reason_ == HeavyReason::kNone) heavy_reason_ = HeavyReason::kSmTrap;
      } else {
        sm_trap_deferred_ = true;
      }
    } else if (notice->trap_number == 128 || notice->trap_number == 145 || v.sweep) {
      // A port-error trap that just marked its port unhealthy gets one heavy sweep too.
      heavy_reason_ = HeavyReason::kTrap;
      if (notice->trap_number != 128) full_sweep_trap_ = true;  // not a link change
      // Both ends of a link send Trap 128: one arriving mid-sweep may be news the
      // sweep already handled (the targeted sweep then needs no full sweep for it).
      trap_while_sweeping_ = phase_ != SweepPhase::kIdle && phase_ != SweepPhase::kLightSweep;
    }
  }
  // Port-error traps stay with the SM, as OpenSM keeps them (osm_trap_rcv.c); the rest
  // go to InformInfo subscribers (IBA 13.4.8).
  if (!is_port_error_trap(*notice)) sa_.forward_trap(*notice, raw.slid);
}

void SubnetManager::disable_babbling_port(Lid lid, PortNum port, Lid source) {
  // The port the traps are about: LIDADDR names its node (a switch's port 0 LID or the
  // CA port's), PORTNO the port.
  for (const auto& h : fabric_.lid_holders()) {
    const Port& holder = fabric_.node(h.node).ports[h.port];
    const auto owns = [&](Lid l) { return l >= holder.lid && l < holder.lid + (1u << holder.lmc); };
    if (!owns(lid)) continue;
    // A port reports its own errors (IBA 14.2.5.1): traps about this node come from
    // its LID. Anything else is forged (any host can send a Trap), and must not be
    // able to switch off somebody else's link.
    if (!owns(source)) {
      trap_log_->warn(
          "{}: LID {} sent {} port-error traps naming LID {} port {}: a node reports only "
          "its own ports, so nothing is disabled",
          format_error_id(kErrBabblingPort), source, TrapFilter::kBabblingThreshold, lid, port);
      return;
    }
    NodeIndex node = h.node;
    const Node* n = &fabric_.node(node);
    if (port >= n->ports.size() || !n->ports[port].present) break;
    // As OpenSM: the end of the link nearer the SM, which still answers when the
    // babbling end no longer does.
    const Port* p = &n->ports[port];
    if (p->peer != kNoNode && fabric_.node(p->peer).path.hops() < n->path.hops()) {
      port = p->peer_port;
      node = p->peer;
      n = &fabric_.node(node);
      p = &n->ports[port];
    }
    mad::PortInfo pi = p->info;
    pi.port_state = mad::PortState::kDown;
    pi.phys_state = mad::PhysState::kDisabled;
    if (!n->is_switch()) {
      pi.lid = p->lid != 0 ? p->lid : pi.lid;
      pi.master_sm_lid = sm_lid_;
    }
    const std::string where =
        fmt::format("{} port {} (GUID 0x{:016x})", n->display_name(), port, n->info.port_guid);
    trap_log_->error("{}: disabling {}: it sent {} port-error traps in a row",
                     format_error_id(kErrBabblingPort), where, TrapFilter::kBabblingThreshold);
    client_.submit(mad::SmpRequest::set(mad::SmpTarget{n->path}, pi, port),
                   [this, where](const mad::SmpOutcome& o) {
                     if (!o.ok())
                       trap_log_->error("{}: disabling {} failed: {}",
                                        format_error_id(kErrBabblingPort), where,
                                        o.failure != nullptr ? o.failure->detail : "?");
                   });
    return;
  }
  trap_log_->warn(
      "{}: LID {} port {} sent too many port-error traps, but the SM knows no such port",
      format_error_id(kErrBabblingPort), lid, port);
}

}  // namespace ibsm::sm
