#include "mad/smp_client.hpp"

#include <algorithm>
#include <cerrno>

#include "mad/errors.hpp"

namespace ibsm::mad {

std::string_view failure_kind_name(SmpFailure::Kind k) {
  switch (k) {
    case SmpFailure::Kind::kTimeout:
      return "timeout";
    case SmpFailure::Kind::kStatus:
      return "error status";
    case SmpFailure::Kind::kMalformed:
      return "malformed response";
    case SmpFailure::Kind::kSendFailed:
      return "send failed";
  }
  return "unknown";
}

std::string SmpRequest::describe() const {
  std::string m = method == Method::kGet ? "Get" : method == Method::kSet ? "Set" : "Method?";
  return m + "(" + std::string(attr_name(attr)) + ", mod 0x" +
         [&] {
           char b[12];
           std::snprintf(b, sizeof b, "%x", attr_mod);
           return std::string(b);
         }() +
         ") to " + target_to_string(target);
}

std::string_view SmpClient::state_name(TxState s) {
  switch (s) {
    case TxState::kQueued:
      return "queued";
    case TxState::kOnWire:
      return "on_wire";
    case TxState::kDone:
      return "done";
    case TxState::kFailed:
      return "failed";
  }
  return "?";
}

std::string_view SmpClient::event_name(TxEvent e) {
  switch (e) {
    case TxEvent::kSent:
      return "sent";
    case TxEvent::kResponse:
      return "response";
    case TxEvent::kDeadline:
      return "deadline";
    case TxEvent::kSendError:
      return "send_error";
    case TxEvent::kBadResponse:
      return "bad_response";
  }
  return "?";
}

SmpWindowSettings window_settings(const SmpClientSettings& s, unsigned transport_limit) {
  using S = SmpClientSettings;
  SmpWindowSettings w;
  // OpenSM: max_wire_smps 0 = unlimited (0x7FFFFFFF); ibsm still adapts below it.
  const unsigned configured = s.window == 0 ? S::kUnlimited : std::min(s.window, S::kUnlimited);
  if (s.window_given) {
    w.cap = configured;
    w.initial = std::min(configured, S::kAdaptiveCap);
  } else {
    w.cap = S::kAdaptiveCap;
    w.initial = S::kAdaptiveInitial;
  }
  w.per_destination = S::kPerDestination;
  w.timeout = s.timeout;
  // OpenSM: a max_wire_smps2 not above max_wire_smps turns the escape off.
  w.stall_cap = s.window2 > configured ? s.window2 : 0;
  w.stall_timeout = s.window2_after;
  if (transport_limit != 0) {
    // Past it the transport blocks for good (umad2sim): no setting may go there.
    w.cap = std::min(w.cap, transport_limit);
    w.initial = std::min(w.initial, transport_limit);
    w.stall_cap = std::min(w.stall_cap, transport_limit);
  }
  return w;
}

SmpClient::SmpClient(MadTransport& transport, const Clock& clock, Logger log,
                     SmpClientSettings settings)
    : transport_(transport),
      clock_(clock),
      log_(std::move(log)),
      settings_(settings),
      window_(window_settings(settings, transport.max_unanswered_requests())) {
  dispatcher_.set_logger(log_);
  logged_window_ = window_.allowed();
  counters_.peak_window = logged_window_;
}

void SmpClient::set_settings(const SmpClientSettings& s) {
  settings_ = s;
  window_.reconfigure(window_settings(s, transport_.max_unanswered_requests()));
  note_window();
}

void SmpClient::note_window() {
  const unsigned now = window_.allowed();
  counters_.peak_on_wire = window_.peak_in_flight();
  counters_.window_decreases = window_.decreases();
  if (now == logged_window_) return;
  counters_.peak_window = std::max<std::uint64_t>(counters_.peak_window, now);
  log_->debug("SMP window {} -> {} ({}; {} on the wire, {} queued)", logged_window_, now,
              window_.last_reason(), on_wire_.size(), queue_.size());
  logged_window_ = now;
}

SmpClient::TxState SmpClient::transition(Transaction& tx, TxEvent ev) const {
  TxState next = tx.state;
  switch (tx.state) {
    case TxState::kQueued:
      if (ev == TxEvent::kSent) next = TxState::kOnWire;
      break;
    case TxState::kOnWire:
      switch (ev) {
        case TxEvent::kResponse:
          next = TxState::kDone;
          break;
        case TxEvent::kDeadline: {
          // A request with its own retry count (a poll on its own timer) keeps it; the
          // rest get more attempts while the fabric is losing SMPs (mad/smp_loss.hpp).
          const unsigned allowed =
              tx.request.retries ? *tx.request.retries + 1 : loss_.attempts(settings_.retries + 1);
          next = tx.attempts < allowed ? TxState::kQueued : TxState::kFailed;
          break;
        }
        case TxEvent::kSendError:
        case TxEvent::kBadResponse:
          next = TxState::kFailed;
          break;
        case TxEvent::kSent:
          break;
      }
      break;
    case TxState::kDone:
    case TxState::kFailed:
      break;
  }
  if (next == tx.state) {
    log_->error("SMP transaction tid {}: event {} not valid in state {}", tx.tid, event_name(ev),
                state_name(tx.state));
  } else if (log_->should_log(spdlog::level::trace)) {
    log_->trace("SMP tid {} {}: {} -> {} ({})", tx.tid, tx.request.describe(), state_name(tx.state),
                state_name(next), event_name(ev));
  }
  tx.state = next;
  return next;
}

void SmpClient::submit(SmpRequest request, Callback done) {
  auto tx = std::make_shared<Transaction>();
  tx->request = std::move(request);
  tx->done = std::move(done);
  tx->dest = destination_of(tx->request.target);
  queue_.push_back(std::move(tx));
}

void SmpClient::submit_feed(Feed feed) {
  feeds_.push_back(std::move(feed));
}

void SmpClient::respond(const Smp& response, Lid dlid) {
  OutgoingMad out;
  out.bytes = response.bytes();
  out.dlid = response.directed() ? kPermissiveLid : dlid;
  if (auto st = transport_.send(out); !st.ok()) {
    ++counters_.errors;
    log_->error("{}: sending response: {}", format_error_id(st.error().id), st.error().message);
  } else {
    ++counters_.sent;
  }
}

void SmpClient::fill_window() {
  window_.tick(clock_.now());
  // Requests to a destination at its own limit wait in place (order kept)
  // while later ones to other destinations go; looking at most kLookAhead
  // past them bounds the cost with a long queue.
  constexpr std::size_t kLookAhead = 256;
  // Feeds keep twice that queued: enough destinations to fill the window.
  while (!feeds_.empty() && queue_.size() < 2 * kLookAhead) {
    const std::size_t before = queue_.size();
    // A feed that says it has more but submitted nothing is dropped too, so a
    // faulty one cannot spin here.
    if (!feeds_.front()(*this) || queue_.size() == before) feeds_.pop_front();
  }
  std::size_t i = 0;
  while (i < queue_.size() && i <= kLookAhead && !window_.full()) {
    if (!window_.may_send(queue_[i]->dest)) {
      ++i;
      continue;
    }
    // By index: a callback run by send_one may submit (push_back) more.
    TxPtr tx = std::move(queue_[i]);
    queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(i));
    send_one(tx);
  }
  note_window();
}

void SmpClient::send_one(const TxPtr& tx) {
  tx->tid = next_tid_++;
  if (next_tid_ == 0) next_tid_ = 1;
  ++tx->attempts;
  const std::uint64_t m_key = tx->request.m_key != 0 || !mkey_resolver_
                                  ? tx->request.m_key
                                  : mkey_resolver_(tx->request.target);
  Smp smp = Smp::request(tx->request.method, tx->request.attr, tx->request.attr_mod,
                         tx->request.target, tx->tid, m_key);
  std::copy(tx->request.data.begin(), tx->request.data.end(), smp.data().begin());
  OutgoingMad out;
  out.bytes = smp.bytes();
  if (const auto* lid = std::get_if<Lid>(&tx->request.target)) out.dlid = *lid;
  SentMad& sent = tx->sent;
  sent.mgmt_class = smp.directed() ? kClassSmiDirected : kClassSmiLid;
  sent.method = static_cast<std::uint8_t>(tx->request.method);
  sent.tid_low = tx->tid;
  sent.attr_id = static_cast<std::uint16_t>(tx->request.attr);
  sent.attr_mod = tx->request.attr_mod;
  sent.attr_mod_flags = smp_modifier_flags(sent.attr_id);
  sent.dlid = out.dlid;
  if (const auto* path = std::get_if<DrPath>(&tx->request.target)) {
    sent.hop_count = static_cast<std::uint8_t>(path->hops());
    sent.initial_path = path->initial_path();
  }
  const std::chrono::milliseconds timeout = tx->request.timeout.value_or(settings_.timeout);
  out.timeout_ms = static_cast<std::uint32_t>(timeout.count());
  transition(*tx, TxEvent::kSent);
  on_wire_[tx->tid] = tx;
  tx->sent_at = clock_.now();
  window_.on_sent(tx->dest, tx->sent_at);
  // At most the losses expected over the loss estimate's horizon: enough to cover the
  // timeouts still due from a full window, too little to hide a burst for long.
  const double random_loss = loss_.random_loss();
  loss_credit_ = std::min(loss_credit_ + random_loss, 1 + random_loss * SmpLoss::kHorizon);
  tx->deadline = tx->sent_at + timeout;
  // Deadlines stay sorted: a request with a longer timeout of its own sits behind the
  // ones sent after it (rare, so the insertion's cost does not matter).
  if (deadlines_.empty() || deadlines_.back().first <= tx->deadline) {
    deadlines_.emplace_back(tx->deadline, tx->tid);
  } else {
    const auto at = std::upper_bound(
        deadlines_.begin(), deadlines_.end(), tx->deadline,
        [](Clock::TimePoint t, const std::pair<Clock::TimePoint, std::uint32_t>& e) {
          return t < e.first;
        });
    deadlines_.emplace(at, tx->deadline, tx->tid);
  }
  if (auto st = transport_.send(out); !st.ok()) {
    SmpFailure f{SmpFailure::Kind::kSendFailed, 0, st.error().message};
    ++counters_.errors;
    transition(*tx, TxEvent::kSendError);
    finish(tx, nullptr, &f);
    return;
  }
  ++counters_.sent;
}

std::size_t SmpClient::cancel(const std::function<bool(const SmpRequest&)>& which) {
  std::size_t n = 0;
  for (auto it = queue_.begin(); it != queue_.end();) {
    if (which((*it)->request)) {
      it = queue_.erase(it);
      ++n;
    } else {
      ++it;
    }
  }
  for (auto it = on_wire_.begin(); it != on_wire_.end();) {
    if (which(it->second->request)) {
      window_.on_abandoned(it->second->dest, clock_.now());
      it = on_wire_.erase(it);  // its deadline entry goes stale and is skipped
      ++n;
    } else {
      ++it;
    }
  }
  return n;
}

void SmpClient::finish(const TxPtr& tx, const Smp* response, const SmpFailure* failure) {
  on_wire_.erase(tx->tid);
  // An answer, even with an error status, times the responder; a send failure
  // or a malformed answer says nothing about its speed.
  const bool timed =
      response != nullptr || (failure != nullptr && failure->kind == SmpFailure::Kind::kStatus);
  if (timed && tx->request.timeout) {
    // A long transaction's answer is slow by nature: not a sign of congestion.
    window_.on_abandoned(tx->dest, clock_.now());
    loss_.on_answered(tx->attempts);
  } else if (timed) {
    window_.on_answer(tx->dest, tx->sent_at, clock_.now());
    loss_.on_answered(tx->attempts);
  } else {
    window_.on_abandoned(tx->dest, clock_.now());
  }
  if (tx->done) tx->done(SmpOutcome{tx->request, response, failure});
}

void SmpClient::handle(const IncomingMad& in) {
  // Every management class reaches us on the one port: SMPs are ours, the rest
  // (SA, ...) belong to whoever registered for the class.
  const std::uint8_t mgmt_class = in.length >= 2 ? in.bytes[1] : 0;
  if (mgmt_class != kClassSmiLid && mgmt_class != kClassSmiDirected) {
    dispatcher_.dispatch(in);
    return;
  }
  // A MAD shorter than 256 bytes is malformed, whatever the buffer behind it holds.
  auto parsed = Smp::parse(
      std::span<const std::uint8_t>(in.bytes.data(), std::min(in.length, in.bytes.size())));
  if (!parsed.ok()) {
    ++counters_.errors;
    log_->warn("{}: dropped MAD from LID {}: {}", format_error_id(parsed.error().id), in.slid,
               parsed.error().message);
    return;
  }
  const Smp& smp = *parsed;
  if (in.status != 0) {
    // The kernel handing back a send it gave up on (ETIMEDOUT): same as our deadline.
    auto it = on_wire_.find(smp.tid_low());
    if (it != on_wire_.end()) {
      it->second->deadline = clock_.now();
      deadline_moved_ = true;
    }
    return;
  }
  if (!smp.is_response()) {
    ++counters_.unsolicited;
    if (on_request_) on_request_(smp, in);
    return;
  }
  auto it = on_wire_.find(smp.tid_low());
  if (it == on_wire_.end()) {
    ++counters_.unexpected;
    loss_.on_late_answer();
    log_->debug("{}: response tid {} matches no outstanding request (late?)",
                format_error_id(kErrUnexpectedResponse), smp.tid_low());
    return;
  }
  TxPtr tx = it->second;
  // A live TID is not enough: the answer must be this request's (a forged or stray
  // GetResp is dropped and the request keeps waiting for the real one).
  const Mismatch why = match_answer(
      tx->sent, ReceivedMad{std::span<const std::uint8_t>(smp.bytes().data(), kMadSize), in.slid});
  if (why != Mismatch::kNone) {
    refuse(*tx, in, smp, why);
    return;
  }
  if (smp.status() != 0) {
    SmpFailure f{SmpFailure::Kind::kStatus, smp.status(),
                 "MAD status " + std::to_string(smp.status())};
    ++counters_.errors;
    transition(*tx, TxEvent::kBadResponse);
    finish(tx, nullptr, &f);
    return;
  }
  ++counters_.received;
  transition(*tx, TxEvent::kResponse);
  finish(tx, &smp, nullptr);
}

void SmpClient::refuse(const Transaction& tx, const IncomingMad& in, const Smp& smp, Mismatch why) {
  ++counters_.mismatched;
  if (!mismatch_log_.allow(clock_.now())) return;
  // The claimed source: a LID-routed answer names its SLID; a DR one has only its path.
  std::string from;
  if (smp.directed()) {
    from = "DR path 0";
    const std::size_t hops = std::min<std::size_t>(smp.hop_count(), DrPath::kMaxHops);
    for (std::size_t i = 1; i <= hops; ++i)
      from += "," + std::to_string(smp.bytes()[128 + i]);
    from += " (SLID " + std::to_string(in.slid) + ")";
  } else {
    from = "LID " + std::to_string(in.slid);
  }
  char head[96];
  std::snprintf(head, sizeof head, "method 0x%02x attribute 0x%04x modifier 0x%x",
                static_cast<unsigned>(smp.method()), static_cast<unsigned>(smp.attr_id()),
                smp.attr_mod());
  const std::uint64_t skipped = mismatch_log_.suppressed();
  log_->warn("{}: SMP answer from {} with tid {} ({}) dropped: {} for {}{}",
             format_error_id(kErrAnswerMismatch), from, smp.tid_low(), head, mismatch_name(why),
             tx.request.describe(),
             skipped ? " (" + std::to_string(skipped) + " more not logged)" : std::string());
}

void SmpClient::expire_deadlines() {
  const auto now = clock_.now();
  // Entries are in send order; those whose transaction already finished are stale.
  std::vector<TxPtr> expired;
  while (!deadlines_.empty()) {
    auto [when, tid] = deadlines_.front();
    auto it = on_wire_.find(tid);
    if (it == on_wire_.end()) {
      deadlines_.pop_front();
      continue;
    }
    if (it->second->deadline > now) break;
    deadlines_.pop_front();
    expired.push_back(it->second);
    on_wire_.erase(it);
  }
  // Kernel timeout reports move a deadline to "now" out of order; catch those
  // too (only then: a scan of the whole window per poll adds up with a big one).
  for (auto it = on_wire_.begin(); deadline_moved_ && it != on_wire_.end();) {
    if (it->second->deadline <= now) {
      expired.push_back(it->second);
      it = on_wire_.erase(it);
    } else {
      ++it;
    }
  }
  deadline_moved_ = false;
  for (auto& tx : expired) {
    if (loss_credit_ >= 1) {
      // As many timeouts as the fabric's random loss explains are not congestion.
      loss_credit_ -= 1;
      ++counters_.loss_timeouts;
      window_.on_abandoned(tx->dest, now);
    } else {
      window_.on_timeout(tx->dest, tx->sent_at, now);
    }
    if (transition(*tx, TxEvent::kDeadline) == TxState::kQueued) {
      ++counters_.retries;
      if (!tx->request.retries && tx->attempts > settings_.retries) ++counters_.loss_retries;
      queue_.push_front(tx);  // retries go first: they hold back their sweep phase
    } else {
      ++counters_.timeouts;
      SmpFailure f{SmpFailure::Kind::kTimeout, 0,
                   "no response after " + std::to_string(tx->attempts) + " attempts"};
      if (tx->done) tx->done(SmpOutcome{tx->request, nullptr, &f});
    }
  }
}

void SmpClient::poll(std::chrono::milliseconds max_wait) {
  fill_window();
  auto wait = max_wait;
  // Entries of finished transactions would only wake us early.
  while (!deadlines_.empty() && !on_wire_.contains(deadlines_.front().second))
    deadlines_.pop_front();
  if (!deadlines_.empty()) {
    // Rounded up: a wait truncated to 0 ms short of a deadline would never let
    // the deadline pass (a busy loop on a real clock, a stall on a fake one).
    const auto until =
        std::chrono::ceil<std::chrono::milliseconds>(deadlines_.front().first - clock_.now());
    wait = std::clamp(until, std::chrono::milliseconds(0), wait);
  }
  if (auto stall = window_.stall_deadline(); stall && !queue_.empty()) {
    // max_smps_timeout: wake up to let one more out of a stalled window.
    const auto until = std::chrono::ceil<std::chrono::milliseconds>(*stall - clock_.now());
    wait = std::clamp(until, std::chrono::milliseconds(0), wait);
  }
  // Receive batching (SmpClientSettings::batch_wait): nothing ready yet and a batch
  // worth waiting for out, so sleep once rather than wake for the first answer.
  std::optional<IncomingMad> in;
  if (settings_.batch_wait.count() > 0 && on_wire_.size() >= settings_.batch_min &&
      settings_.batch_wait < wait) {
    in = transport_.receive(std::chrono::milliseconds(0));
    if (!in) {
      ++counters_.batch_waits;
      clock_.sleep_for(settings_.batch_wait);
      in = transport_.receive(std::chrono::milliseconds(0));
    }
  }
  if (!in) in = transport_.receive(wait);
  if (in) {
    handle(*in);
    // Drain what is already there before sending again: the window refills once
    // per batch, and deadlines are looked at after it.
    for (int i = 0; i < 256; ++i) {
      auto more = transport_.receive(std::chrono::milliseconds(0));
      if (!more) break;
      handle(*more);
    }
  }
  expire_deadlines();
  fill_window();
}

}  // namespace ibsm::mad
