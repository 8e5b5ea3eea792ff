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

SmpClient::SmpClient(MadTransport& transport, const Clock& clock, Logger log,
                     SmpClientSettings settings)
    : transport_(transport), clock_(clock), log_(std::move(log)), settings_(settings) {
  if (settings_.window == 0) settings_.window = 1u << 16;  // OpenSM: 0 = unlimited
  dispatcher_.set_logger(log_);
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
        case TxEvent::kDeadline:
          next = tx.attempts <= settings_.retries ? TxState::kQueued : TxState::kFailed;
          break;
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
  queue_.push_back(std::move(tx));
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
  while (!queue_.empty() && on_wire_.size() < settings_.window) {
    TxPtr tx = std::move(queue_.front());
    queue_.pop_front();
    send_one(tx);
  }
}

void SmpClient::send_one(const TxPtr& tx) {
  tx->tid = next_tid_++;
  if (next_tid_ == 0) next_tid_ = 1;
  ++tx->attempts;
  Smp smp = Smp::request(tx->request.method, tx->request.attr, tx->request.attr_mod,
                         tx->request.target, tx->tid);
  std::copy(tx->request.data.begin(), tx->request.data.end(), smp.data().begin());
  OutgoingMad out;
  out.bytes = smp.bytes();
  if (const auto* lid = std::get_if<Lid>(&tx->request.target)) out.dlid = *lid;
  out.timeout_ms = static_cast<std::uint32_t>(settings_.timeout.count());
  transition(*tx, TxEvent::kSent);
  on_wire_[tx->tid] = tx;
  tx->deadline = clock_.now() + settings_.timeout;
  deadlines_.emplace_back(tx->deadline, tx->tid);
  if (auto st = transport_.send(out); !st.ok()) {
    SmpFailure f{SmpFailure::Kind::kSendFailed, 0, st.error().message};
    ++counters_.errors;
    transition(*tx, TxEvent::kSendError);
    finish(tx, nullptr, &f);
    return;
  }
  ++counters_.sent;
}

void SmpClient::finish(const TxPtr& tx, const Smp* response, const SmpFailure* failure) {
  on_wire_.erase(tx->tid);
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
    if (it != on_wire_.end()) it->second->deadline = clock_.now();
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
    log_->debug("{}: response tid {} matches no outstanding request (late?)",
                format_error_id(kErrUnexpectedResponse), smp.tid_low());
    return;
  }
  TxPtr tx = it->second;
  if (smp.attr_id() != tx->request.attr) {
    SmpFailure f{SmpFailure::Kind::kMalformed, 0,
                 "response carries " + std::string(attr_name(smp.attr_id()))};
    ++counters_.errors;
    transition(*tx, TxEvent::kBadResponse);
    finish(tx, nullptr, &f);
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
  // Kernel timeout reports move a deadline to "now" out of order; catch those too.
  for (auto it = on_wire_.begin(); it != on_wire_.end();) {
    if (it->second->deadline <= now) {
      expired.push_back(it->second);
      it = on_wire_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto& tx : expired) {
    if (transition(*tx, TxEvent::kDeadline) == TxState::kQueued) {
      ++counters_.retries;
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
  if (!on_wire_.empty() && !deadlines_.empty()) {
    const auto until = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadlines_.front().first - clock_.now());
    if (until < wait)
      wait = until < std::chrono::milliseconds(0) ? std::chrono::milliseconds(0) : until;
  }
  if (auto in = transport_.receive(wait)) {
    handle(*in);
    // Drain what is already there before touching deadlines again.
    for (int i = 0; i < 256; ++i) {
      fill_window();
      auto more = transport_.receive(std::chrono::milliseconds(0));
      if (!more) break;
      handle(*more);
    }
  }
  expire_deadlines();
  fill_window();
}

}  // namespace ibsm::mad
