#include "sm/election/election.hpp"

#include <array>

#include "mad/attr/notice.hpp"
#include "sm/election/errors.hpp"

namespace ibsm::sm::election {

namespace {

using namespace std::chrono_literals;

// A polled SM that answers, but not as MASTER (it is still sweeping after our
// HANDOVER, or the HANDOVER was lost), counts as alive only this long.
constexpr Clock::Duration kNotMasterTolerance = 10s;
// Trap 144 (priority change) to a master we outrank: OpenSM sends one per poll, every
// 10 s by default; with fast polls that would be a heavy sweep storm on its side.
constexpr Clock::Duration kTrap144Interval = 10s;
// A foreign SM_Key is logged loudly, but not on every poll.
constexpr Clock::Duration kKeyWarnInterval = 60s;
// An SM that refused our HANDOVER is not asked again for this long.
constexpr Clock::Duration kRefusedHold = 60s;
// IBA 14.2.5.1 trap 144 ChangeFlags: "SM priority changed" (OpenSM's
// TRAP_144_MASK_SM_PRIORITY_CHANGE).
constexpr std::uint16_t kTrap144SmPriorityChanged = 0x0008;
// MAD status 7 in the status field's code bits 2-4 (IBA 13.4.7 table 111): "one or
// more fields of the attribute or attribute modifier contain an invalid value".
constexpr std::uint16_t kStatusInvalidField = 0x001C;

std::optional<Event> control_event(std::uint32_t control) {
  switch (static_cast<SmControl>(control)) {
    case SmControl::kHandover:
      return Event::kHandoverReceived;
    case SmControl::kAcknowledge:
      return Event::kAcknowledgeReceived;
    case SmControl::kDisable:
      return Event::kDisableReceived;
    case SmControl::kStandby:
      return Event::kStandbyReceived;
    case SmControl::kDiscover:
      return Event::kDiscoverReceived;
  }
  return std::nullopt;
}

// The address an SMP to the SM on this port takes: a CA answers for the port the
// SMP enters on, so it goes through its peer switch; a switch's SM sits on port 0.
mad::DrPath sm_port_path(const Fabric& f, NodeIndex n, PortNum port) {
  const Node& node = f.node(n);
  if (node.is_switch()) return node.path;
  const Port& p = node.ports[port];
  if (p.peer != kNoNode) {
    if (auto ext = f.node(p.peer).path.extended(p.peer_port)) return *ext;
  }
  return node.path;
}

std::string describe(const RemoteSm& r) {
  return fmt::format("SM {} (LID {}, priority {}, {})", mad::format_guid(r.guid), r.lid, r.priority,
                     mad::sm_state_name(r.state));
}

}  // namespace

Election::Election(mad::SmpClient& client, const Clock& clock, Logger log, Settings settings,
                   Guid own_guid, SmState initial)
    : client_(client),
      clock_(clock),
      log_(std::move(log)),
      settings_(settings),
      own_guid_(own_guid),
      state_(initial) {}

void Election::set_settings(const Settings& s) {
  const bool restart = s.poll_interval != settings_.poll_interval;
  settings_ = s;
  if (restart && polled_) next_poll_ = clock_.now();  // OpenSM restarts its timer too
}

std::uint8_t Election::advertised_priority() const {
  if (yielded_) return 0;
  if (state_ == SmState::kMaster && settings_.master_priority > settings_.priority)
    return settings_.master_priority;
  return settings_.priority;
}

mad::SmInfo Election::own_info() const {
  mad::SmInfo info;
  info.guid = own_guid_;
  info.sm_key = settings_.sm_key;
  // OpenSM's ActCount is its count of SMPs sent; ours too, so it moves with every
  // poll and every sweep (IBA 14.2.5.13: a heartbeat).
  info.act_count = static_cast<std::uint32_t>(client_.counters().sent);
  info.priority = advertised_priority();
  info.state = state_;
  return info;
}

bool Election::outranks_us(const RemoteSm& r) const {
  if (r.state == SmState::kNotActive || !r.answered) return false;  // IBA 14.4.1.2: skipped
  return outranks({r.guid, r.priority}, {own_guid_, advertised_priority()});
}

const RemoteSm* Election::best_remote(bool masters_only) const {
  const RemoteSm* best = nullptr;
  for (const auto& [guid, r] : remotes_) {
    if (!r.answered || r.state == SmState::kNotActive) continue;
    if (masters_only && r.state != SmState::kMaster) continue;
    if (best == nullptr || outranks({r.guid, r.priority}, {best->guid, best->priority})) best = &r;
  }
  return best;
}

void Election::apply(Event e, std::string_view detail) {
  const Transition t = transition(state_, e);
  if (!t.valid) {
    log_->info("SM election: {} ignored in state {}{}{}", event_name(e), mad::sm_state_name(state_),
               detail.empty() ? "" : ": ", detail);
    next_target_.reset();
    return;
  }
  const SmState from = state_;
  if (t.next != from) {
    log_sys_event(log_, fmt::format("SM state {} -> {} ({}{}{})", mad::sm_state_name(from),
                                    mad::sm_state_name(t.next), event_name(e),
                                    detail.empty() ? "" : ": ", detail));
    if (from == SmState::kStandby || from == SmState::kNotActive) out_of_standby_ = true;
    if (t.next == SmState::kMaster) yielded_ = false;  // mastership again: full priority
    state_ = t.next;
  } else {
    log_->info("SM election: {} in state {}{}{}", event_name(e), mad::sm_state_name(from),
               detail.empty() ? "" : ": ", detail);
  }
  carry_out(t.action);
  carry_out(t.action2);
  next_target_.reset();
  if (t.next != from) {
    if (on_state_) on_state_(from, t.next);
    log_->flush();  // an operator watching the log sees the transition at once
  }
}

void Election::carry_out(Action a) {
  switch (a) {
    case Action::kNone:
      break;
    case Action::kSweep:
      if (pending_ == SweepRequest::kNone) pending_ = SweepRequest::kSweep;
      break;
    case Action::kFirstMasterSweep:
      pending_ = SweepRequest::kFirstMasterSweep;
      break;
    case Action::kStartPolling:
      if (next_target_) start_polling(*next_target_);
      break;
    case Action::kStopPolling:
      polled_.reset();
      break;
  }
}

SweepRequest Election::take_sweep_request() {
  return std::exchange(pending_, SweepRequest::kNone);
}

// ---- SMInfo addressed to us -------------------------------------------------------

void Election::on_sminfo(const mad::Smp& req, const mad::IncomingMad& raw, bool hide_sm_key) {
  std::array<std::uint8_t, mad::kSmpDataSize> data{};
  mad::SmInfo own = own_info();
  if (hide_sm_key) own.sm_key = 0;
  mad::encode(own, mad::Payload(data));  // answers carry the state before any change
  if (req.method() == mad::Method::kGet) {
    log_->debug("SMInfo Get ({}) from LID {}: answered {}", req.directed() ? "DR" : "LID", raw.slid,
                mad::sm_state_name(state_));
    client_.respond(req.response(mad::ConstPayload(data)), raw.slid);
    return;
  }
  if (req.method() != mad::Method::kSet) return;
  auto sender = mad::decode<mad::SmInfo>(req.data());
  const std::uint32_t control = req.attr_mod();
  const SmState sender_state = sender.ok() ? sender->state : SmState::kNotActive;
  const SetVerdict verdict = judge_sminfo_set(state_, sender_state, control);
  mad::Smp answer = req.response(mad::ConstPayload(data));
  if (verdict != SetVerdict::kAccept) answer.set_status(kStatusInvalidField);
  client_.respond(answer, raw.slid);
  const std::string from =
      sender.ok() ? fmt::format("SM {} ({}, priority {}) at LID {}", mad::format_guid(sender->guid),
                                mad::sm_state_name(sender->state), sender->priority, raw.slid)
                  : fmt::format("LID {}", raw.slid);
  if (verdict != SetVerdict::kAccept) {
    log_->warn("{}: SMInfo Set control {} from {} refused in state {}: {}",
               format_error_id(kErrSmInfoSetRefused), control, from, mad::sm_state_name(state_),
               verdict_name(verdict));
    return;
  }
  // Remember who told us: HANDOVER comes from the old master (now our standby),
  // STANDBY names the master a NOTACTIVE SM is to poll (IBA 14.4.1).
  if (sender.ok() && sender->guid != 0 && sender->guid != own_guid_) {
    RemoteSm& r = remotes_[sender->guid];
    r.guid = sender->guid;
    r.priority = sender->priority;
    r.state = sender->state;
    r.act_count = sender->act_count;
    r.answered = true;
    if (raw.slid != mad::kPermissiveLid && raw.slid != 0) {
      r.lid = raw.slid;
      if (!std::holds_alternative<mad::DrPath>(r.target) ||
          std::get<mad::DrPath>(r.target).hops() == 0)
        r.target = raw.slid;
    }
    next_target_ = sender->guid;
  }
  apply(*control_event(control), from);
}

// ---- Discovery -----------------------------------------------------------------

void Election::query_sms(const Fabric& f) {
  if (settings_.ignore_other_sm) return;
  // Before the query every known SM counts as gone: one that does not answer now is
  // treated as NOTACTIVE (OpenSM resets its cached state the same way).
  for (auto& [guid, r] : remotes_)
    r.answered = false;
  for (NodeIndex n = 0; n < f.size(); ++n) {
    const Node& node = f.node(n);
    for (const Port& p : node.ports) {
      if (!p.present || (p.info.capability_mask & mad::kCapIsSm) == 0) continue;
      if (node.is_switch() != (p.num == 0)) continue;  // SMs sit on CA ports or switch port 0
      if (n == f.sm_node && p.num == f.sm_port) continue;
      const Guid guid = p.guid;
      const mad::DrPath path = sm_port_path(f, n, p.num);
      const Lid lid = p.info.lid;
      auto req = mad::SmpRequest::get<mad::SmInfo>(path);
      client_.submit(req, [this, guid, path, lid](const mad::SmpOutcome& o) {
        mad::SmInfo info;
        if (!o.ok()) {
          log_->info("SM port {} (IsSM) did not answer SMInfo: {}", mad::format_guid(guid),
                     o.failure->detail);
          return;
        }
        if (!accept_answer(o.request, guid, *o.response, info)) return;
        RemoteSm& r = remotes_[guid];
        r.guid = guid;
        r.target = path;
        r.lid = lid;
        r.priority = info.priority;
        r.state = info.state;
        r.act_count = info.act_count;
        r.answered = true;
      });
    }
  }
}

bool Election::accept_answer(const mad::SmpRequest& req, Guid expected, const mad::Smp& resp,
                             mad::SmInfo& out) {
  auto info = mad::decode<mad::SmInfo>(resp.data());
  if (!info.ok()) {
    log_->warn("{}: {}: undecodable SMInfo", format_error_id(kErrSmInfoBadAnswer), req.describe());
    return false;
  }
  if (info->guid != expected) {
    log_->warn("{}: SMInfo from port {} carries GUID {}; ignored",
               format_error_id(kErrSmInfoBadAnswer), mad::format_guid(expected),
               mad::format_guid(info->guid));
    return false;
  }
  // IBA 14.4.1 / OpenSM: with our SM_Key non-zero, an SM with another key is not one
  // of ours and must not take part in the election.
  if (settings_.sm_key != 0 && info->sm_key != settings_.sm_key) {
    warn_key_mismatch(expected, info->sm_key);
    return false;
  }
  out = *info;
  return true;
}

void Election::warn_key_mismatch(Guid guid, std::uint64_t key) {
  auto it = key_warned_.find(guid);
  const auto now = clock_.now();
  if (it != key_warned_.end() && now - it->second < kKeyWarnInterval) return;
  key_warned_[guid] = now;
  log_->error(
      "{}: SM {} answers with SM_Key {:#018x}, ours is {:#018x}: ignored; it may act as a "
      "second master",
      format_error_id(kErrForeignSmKey), mad::format_guid(guid), key, settings_.sm_key);
}

bool Election::after_discovery() {
  if (settings_.ignore_other_sm) {
    if (state_ == SmState::kDiscovering) apply(Event::kDiscoveredNoneHigher, "ignore_other_sm");
    pending_ = SweepRequest::kNone;  // this sweep is the first master sweep
    return true;
  }
  std::erase_if(remotes_, [](const auto& kv) { return !kv.second.answered; });
  if (state_ == SmState::kDiscovering) {
    // IBA 14.4.1: a MASTER seen (any priority), or a higher SM that is still
    // discovering or standing by, makes us STANDBY; else we are master.
    const RemoteSm* target = best_remote(true);
    if (target == nullptr) {
      const RemoteSm* higher = best_remote(false);
      if (higher != nullptr && outranks_us(*higher)) target = higher;
    }
    if (target != nullptr) {
      next_target_ = target->guid;
      apply(Event::kDiscoveredMasterOrHigher, describe(*target));
      return false;
    }
    apply(Event::kDiscoveredNoneHigher,
          remotes_.empty() ? "no other SM"
                           : fmt::format("{} other SM(s), none higher or master", remotes_.size()));
    pending_ = SweepRequest::kNone;  // this sweep goes on as the first master sweep
    return true;
  }
  if (state_ != SmState::kMaster) return false;
  // MASTER: a higher SM (any state but NOTACTIVE) gets the subnet (C14-60.1.1); we hand
  // over before programming a fabric that is no longer ours to program.
  const RemoteSm* higher = best_remote(false);
  if (higher != nullptr && outranks_us(*higher)) {
    auto refused = refused_.find(higher->guid);
    if (refused == refused_.end() || clock_.now() - refused->second >= kRefusedHold) {
      send_handover(*higher);
      return false;
    }
  }
  // A lower SM that is MASTER too (a healed split): keep mastership and poll it
  // until it hands over (C14-60.2.1).
  for (const auto& [guid, r] : remotes_) {
    if (r.state == SmState::kMaster && !outranks_us(r)) {
      if (polled_ != guid) {
        next_target_ = guid;
        apply(Event::kDiscoveredMasterOrHigher, "lower master " + describe(r));
      }
      break;
    }
  }
  return true;
}

void Election::poll_known_sms() {
  if (settings_.ignore_other_sm || state_ != SmState::kMaster) return;
  for (const auto& [guid, r] : remotes_) {
    const Guid g = guid;
    client_.submit(mad::SmpRequest::get<mad::SmInfo>(r.target),
                   [this, g](const mad::SmpOutcome& o) {
                     mad::SmInfo info;
                     if (!o.ok() || !accept_answer(o.request, g, *o.response, info)) return;
                     auto it = remotes_.find(g);
                     if (it == remotes_.end()) return;
                     it->second.priority = info.priority;
                     it->second.state = info.state;
                     it->second.act_count = info.act_count;
                     // OpenSM's light-sweep rule: another MASTER, or a higher SM, needs a heavy
                     // sweep.
                     if (state_ == SmState::kMaster &&
                         (info.state == SmState::kMaster || outranks_us(it->second)) &&
                         polled_ != g && pending_ == SweepRequest::kNone) {
                       log_->info("light sweep: {} needs a heavy sweep", describe(it->second));
                       pending_ = SweepRequest::kSweep;
                     }
                   });
  }
}

// ---- Polling -------------------------------------------------------------------

void Election::start_polling(Guid target) {
  polled_ = target;
  unanswered_ticks_ = 0;
  not_master_since_.reset();
  trap144_sent_ = false;
  next_poll_ = clock_.now();
}

void Election::tick() {
  if (!polled_ || clock_.now() < next_poll_) return;
  next_poll_ = clock_.now() + settings_.poll_interval;
  // OpenSM's rule (osm_sm_state_mgr.c): each tick either sends a poll or, after
  // polling_retry_number unanswered ones, declares the polled SM gone.
  if (unanswered_ticks_ > settings_.poll_retries) {
    const Guid gone = *polled_;
    const std::string what =
        fmt::format("{} unanswered for {} polls", mad::format_guid(gone), unanswered_ticks_);
    if (state_ == SmState::kStandby)
      log_->warn("{}: master {}", format_error_id(kErrMasterLost), what);
    // Its last polls would only hold up the sweep that follows.
    client_.cancel([](const mad::SmpRequest& r) {
      return r.attr == mad::AttrId::kSmInfo && r.method == mad::Method::kGet;
    });
    remotes_.erase(gone);
    apply(state_ == SmState::kMaster ? Event::kHigherSmGone : Event::kPollTimeout, what);
    return;
  }
  ++unanswered_ticks_;
  send_poll();
}

void Election::send_poll() {
  auto it = remotes_.find(*polled_);
  if (it == remotes_.end()) return;  // nothing to ask: the tick counts as unanswered
  const Guid target = it->first;
  // Two re-sends at most: a lossy path between the SMs must not look like a dead
  // master (any answer resets the count), yet a dead master's last polls must not
  // hold up the takeover's sweep for long.
  auto req = mad::SmpRequest::get<mad::SmInfo>(it->second.target);
  req.retries = 2;
  client_.submit(req, [this, target](const mad::SmpOutcome& o) { on_poll_answer(target, o); });
}

void Election::on_poll_answer(Guid target, const mad::SmpOutcome& o) {
  if (polled_ != target || !o.ok()) return;
  mad::SmInfo info;
  if (!accept_answer(o.request, target, *o.response, info)) return;
  auto it = remotes_.find(target);
  if (it == remotes_.end()) return;
  RemoteSm& r = it->second;
  r.priority = info.priority;
  r.state = info.state;
  r.act_count = info.act_count;
  r.answered = true;
  if (info.state == SmState::kMaster) {
    unanswered_ticks_ = 0;
    not_master_since_.reset();
    // We outrank the master (STANDBY), or it is a lower master that should hand
    // over to us (MASTER): tell it with Trap 144 "SM priority changed" (IBA 14.4.1;
    // OpenSM does the same), which makes it sweep and hand over.
    if (!outranks_us(r)) send_trap144(r);
    return;
  }
  if (state_ == SmState::kMaster) {
    // The lower master we waited for is no longer master: nothing to wait for.
    log_->info("SM election: {} is no longer master; stop polling it", describe(r));
    polled_.reset();
    return;
  }
  // STANDBY polling an SM that answers but is not (yet) master: alive for a while.
  if (!not_master_since_) not_master_since_ = clock_.now();
  if (clock_.now() - *not_master_since_ < kNotMasterTolerance) unanswered_ticks_ = 0;
}

// ---- Handover and traps -----------------------------------------------------------

void Election::send_handover(const RemoteSm& to) {
  if (handover_pending_) return;
  handover_pending_ = true;
  mad::SmInfo payload = own_info();
  payload.state = SmState::kMaster;
  const Guid guid = to.guid;
  log_->info("SM election: handing over to {}", describe(to));
  client_.submit(
      mad::SmpRequest::set(to.target, payload, static_cast<std::uint32_t>(SmControl::kHandover)),
      [this, guid](const mad::SmpOutcome& o) {
        handover_pending_ = false;
        if (state_ != SmState::kMaster) return;
        if (!o.ok()) {
          // Unlike OpenSM (which goes STANDBY without waiting), a refused or lost
          // HANDOVER leaves us MASTER: the subnet never ends up without one.
          log_->warn("{}: HANDOVER to {}: {}; staying MASTER", format_error_id(kErrHandoverFailed),
                     mad::format_guid(guid), o.failure->detail);
          refused_[guid] = clock_.now();
          pending_ = SweepRequest::kSweep;  // program the fabric as its master after all
          return;
        }
        auto it = remotes_.find(guid);
        if (it != remotes_.end()) {
          it->second.state = SmState::kMaster;  // it is now, or is about to be
          not_master_since_.reset();
        }
        next_target_ = guid;
        apply(Event::kHandoverSent, mad::format_guid(guid));
      });
}

void Election::send_trap144(const RemoteSm& master) {
  const auto now = clock_.now();
  if (trap144_sent_ && now - last_trap144_ < kTrap144Interval) return;
  if (master.lid == 0) return;
  trap144_sent_ = true;
  last_trap144_ = now;
  mad::Notice n;
  n.is_generic = true;
  n.type = 4;           // informational (IBA 13.4.8.1, table 113)
  n.producer_type = 1;  // a channel adapter
  n.trap_number = 144;
  n.issuer_lid = own_lid_;
  // Trap 144 details (IBA 14.2.5.1 table 148): LID at bytes 2-3, CapabilityMask at
  // 6-9, ChangeFlags at 10-11.
  n.details[2] = static_cast<std::uint8_t>(own_lid_ >> 8);
  n.details[3] = static_cast<std::uint8_t>(own_lid_);
  const std::uint32_t cap = mad::kCapIsSm;
  n.details[6] = static_cast<std::uint8_t>(cap >> 24);
  n.details[7] = static_cast<std::uint8_t>(cap >> 16);
  n.details[8] = static_cast<std::uint8_t>(cap >> 8);
  n.details[9] = static_cast<std::uint8_t>(cap);
  n.details[10] = static_cast<std::uint8_t>(kTrap144SmPriorityChanged >> 8);
  n.details[11] = static_cast<std::uint8_t>(kTrap144SmPriorityChanged);
  mad::Smp trap =
      mad::Smp::request(mad::Method::kTrap, mad::AttrId::kNotice, 0, master.lid, next_trap_tid_++);
  trap.set_attribute(n);
  log_->info("SM election: Trap 144 (SM priority) to master {}: we outrank it (priority {})",
             describe(master), advertised_priority());
  client_.respond(trap, master.lid);
}

bool Election::hand_over_manually() {
  if (state_ != SmState::kMaster) {
    log_->warn("manual handover requested, but this SM is {}", mad::sm_state_name(state_));
    return false;
  }
  const RemoteSm* to = best_remote(false);
  if (to == nullptr) {
    log_->warn("manual handover requested, but no other SM is known (STANDBY or better)");
    return false;
  }
  yielded_ = true;  // advertise priority 0: the new master must not hand the subnet back
  refused_.erase(to->guid);
  send_handover(*to);
  return true;
}

}  // namespace ibsm::sm::election
