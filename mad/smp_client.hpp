// SmpClient: the SM's side of SMP transactions.
//
// Requests are queued and put on the wire while the adaptive SMP window
// (mad/smp_window.hpp) has room, overall and for the request's destination.
// Each outstanding request has a deadline
// from the injected Clock; a request that misses it is sent again with a fresh
// TID up to `retries` times, then fails with a timeout. Responses are looked up by
// the low 32 bits of the TID (the kernel and umad2sim own the upper bits) and taken
// only if the rest binds them to that request (mad/answer_match.hpp: method,
// attribute, modifier, source LID or DR path); others are dropped, counted and logged
// (IBSM-1016, rate-limited) while the request waits for its real answer.
// Everything runs on the caller's thread inside poll(): no locks, no threads.
//
// Each transaction is a small state machine (queued -> on_wire -> done/failed,
// on_wire -> queued on a retry), driven by one transition function so the log
// names every state change.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "common/log_limit.hpp"
#include "mad/answer_match.hpp"
#include "mad/dispatcher.hpp"
#include "mad/smp.hpp"
#include "mad/smp_loss.hpp"
#include "mad/smp_window.hpp"
#include "mad/transport.hpp"

namespace ibsm::mad {

struct SmpClientSettings {
  // max_wire_smps. When given (window_given), the cap of the window, as in
  // OpenSM, and 0 = no cap; the window starts at min(window, kAdaptiveCap) and
  // shrinks below it only on congestion (timeouts, late answers). When not
  // given, ibsm's adaptive default: start at kAdaptiveInitial, grow up to
  // kAdaptiveCap.
  unsigned window = 4;
  std::chrono::milliseconds timeout{200};           // transaction_timeout
  unsigned retries = 3;                             // transaction_retries
  bool window_given = true;                         // false: max_wire_smps was left at its default
  unsigned window2 = 0;                             // max_wire_smps2 (<= max_wire_smps: off)
  std::chrono::microseconds window2_after{600000};  // max_smps_timeout
  // Receive batching: with at least batch_min SMPs awaiting answers and none
  // ready, poll() first sleeps batch_wait so that several answers are handled
  // (and their follow-ups sent) per wake-up, rather than waking for each one.
  // Every wake-up is a scheduler round trip (futex and IPI; under umad2sim a
  // hand-off from its receiver thread as well) that costs more CPU than the
  // answer it delivers once answers come faster than every few tens of µs.
  // A lone SMP or a short window is never held back. 0 turns it off.
  std::chrono::microseconds batch_wait{50};
  unsigned batch_min = 8;

  // OpenSM's fixed window: known safe on every fabric, so the place to start.
  static constexpr unsigned kAdaptiveInitial = 4;
  // The kernel's MAD layer keeps at most 128 sends on QP0 (ib_mad's default
  // send queue); more only wait in its software queue, so 128 is all the
  // parallelism the wire can see from one port.
  static constexpr unsigned kAdaptiveCap = 128;
  // max_wire_smps 0: no cap (OpenSM: 0x7FFFFFFF); the window still adapts.
  static constexpr unsigned kUnlimited = 1u << 20;
  // SMPs in flight to one management processor, at most.
  static constexpr unsigned kPerDestination = 16;
};

// The window controller's bounds for these client settings on a transport
// that takes at most `transport_limit` unanswered requests (0: no limit).
SmpWindowSettings window_settings(const SmpClientSettings& s, unsigned transport_limit = 0);

struct SmpCounters {
  std::uint64_t sent = 0;              // SMPs put on the wire, retries included
  std::uint64_t received = 0;          // responses matched to a request
  std::uint64_t timeouts = 0;          // requests that failed after all retries
  std::uint64_t retries = 0;           // re-sends after a missed deadline
  std::uint64_t errors = 0;            // error status, malformed response or send failure
  std::uint64_t unexpected = 0;        // responses matching no outstanding request
  std::uint64_t mismatched = 0;        // responses with a live TID but not its request's fields
  std::uint64_t unsolicited = 0;       // requests/traps addressed to us
  std::uint64_t peak_window = 0;       // largest SMP window reached
  std::uint64_t peak_on_wire = 0;      // most SMPs outstanding at once
  std::uint64_t window_decreases = 0;  // halvings of the window on timeouts or late answers
  std::uint64_t loss_retries = 0;      // re-sends beyond transaction_retries on a lossy fabric
  std::uint64_t loss_timeouts = 0;     // timeouts put down to random loss, not congestion
  std::uint64_t batch_waits = 0;       // sleeps of batch_wait before waiting for one answer
};

struct SmpFailure {
  enum class Kind : std::uint8_t { kTimeout, kStatus, kMalformed, kSendFailed };
  Kind kind = Kind::kTimeout;
  std::uint16_t status = 0;
  std::string detail;
};
std::string_view failure_kind_name(SmpFailure::Kind k);

struct SmpRequest {
  Method method = Method::kGet;
  AttrId attr = AttrId::kNodeInfo;
  std::uint32_t attr_mod = 0;
  SmpTarget target = DrPath{};
  std::array<std::uint8_t, kSmpDataSize> data{};  // payload of a Set
  // Re-sends after a missed deadline; unset: the client's setting (transaction_retries).
  // A request repeated on its own timer (a standby's SMInfo poll) needs fewer.
  std::optional<unsigned> retries;
  // M_Key of the header (IBA 14.2.4). 0: the client's M_Key resolver picks the
  // target's key (set_mkey_resolver), so call sites need not know keys.
  std::uint64_t m_key = 0;
  // How long each attempt waits for its answer; unset: the client's setting
  // (transaction_timeout). For SMPs a device takes long to carry out (OpenSM's
  // long_transaction_timeout: an SLtoVLMappingTable Set for all ports of a switch).
  // Its answers do not time the window: their round trip says nothing of congestion.
  std::optional<std::chrono::milliseconds> timeout;

  template <class A>
  static SmpRequest get(const SmpTarget& t, std::uint32_t mod = 0) {
    SmpRequest r;
    r.method = Method::kGet;
    r.attr = A::kAttrId;
    r.attr_mod = mod;
    r.target = t;
    return r;
  }
  template <class A>
  static SmpRequest set(const SmpTarget& t, const A& value, std::uint32_t mod = 0) {
    SmpRequest r;
    r.method = Method::kSet;
    r.attr = A::kAttrId;
    r.attr_mod = mod;
    r.target = t;
    encode(value, Payload(r.data));
    return r;
  }
  std::string describe() const;
};

// The outcome handed to a request's callback: the response's data, or why not.
struct SmpOutcome {
  const SmpRequest& request;
  const Smp* response = nullptr;        // set on success
  const SmpFailure* failure = nullptr;  // set on failure
  bool ok() const { return response != nullptr; }
};

class SmpClient {
 public:
  using Callback = std::function<void(const SmpOutcome&)>;
  // Requests addressed to us (SMInfo Get/Set from another SM, Traps).
  using RequestHandler = std::function<void(const Smp& request, const IncomingMad& raw)>;

  SmpClient(MadTransport& transport, const Clock& clock, Logger log, SmpClientSettings settings);

  void submit(SmpRequest request, Callback done);
  // Requests made on demand: the client calls `feed` whenever its queue runs short,
  // and the feed submits one or more requests, or returns false once it has none
  // left (it is then dropped). For phases that would otherwise queue thousands of
  // requests at once, each a few hundred bytes with its callback (the port tables of
  // a 2048-host fabric: 4 MB). Fed requests go after those already queued; cancel()
  // does not see them until they are submitted.
  using Feed = std::function<bool(SmpClient&)>;
  void submit_feed(Feed feed);
  // Drops queued and outstanding requests `which` selects, without calling their
  // callbacks; late answers then count as unexpected. For requests whose purpose
  // is gone (a standby's polls of a master it has given up on). Returns how many.
  std::size_t cancel(const std::function<bool(const SmpRequest&)>& which);
  // Sends a response right away, outside the window (answers must not wait
  // behind our own requests).
  void respond(const Smp& response, Lid dlid);
  void set_request_handler(RequestHandler h) { on_request_ = std::move(h); }
  // Fills the header M_Key of requests that carry none: the key of the port the
  // target reaches (the SM knows it; the client does not). Asked at every send, so a
  // retry carries a key learned meanwhile.
  using MkeyResolver = std::function<std::uint64_t(const SmpTarget&)>;
  void set_mkey_resolver(MkeyResolver r) { mkey_resolver_ = std::move(r); }
  // MADs of other management classes that arrive on the same port (the SA's
  // class 0x03) go to the dispatcher's handler for their class.
  MadDispatcher& dispatcher() { return dispatcher_; }

  // Sends what the window allows, waits up to max_wait for one MAD, handles
  // deadlines. Returns after at most about max_wait.
  void poll(std::chrono::milliseconds max_wait);
  bool idle() const { return queue_.empty() && on_wire_.empty() && feeds_.empty(); }
  std::size_t outstanding() const { return on_wire_.size(); }
  std::size_t queued() const { return queue_.size(); }

  const SmpCounters& counters() const { return counters_; }
  void set_settings(const SmpClientSettings& s);
  const SmpClientSettings& settings() const { return settings_; }
  // The SMP window now (what may be on the wire, stall allowance included).
  unsigned window() const { return window_.allowed(); }
  // Fraction of attempts the fabric loses on paths that answer (mad/smp_loss.hpp), and
  // the attempts a request without its own retry count gets because of it.
  double loss() const { return loss_.loss(); }
  unsigned attempts_allowed() const { return loss_.attempts(settings_.retries + 1); }

 private:
  enum class TxState : std::uint8_t { kQueued, kOnWire, kDone, kFailed };
  enum class TxEvent : std::uint8_t { kSent, kResponse, kDeadline, kSendError, kBadResponse };
  static std::string_view state_name(TxState s);
  static std::string_view event_name(TxEvent e);

  struct Transaction {
    SmpRequest request;
    Callback done;
    TxState state = TxState::kQueued;
    unsigned attempts = 0;
    std::uint32_t tid = 0;
    SentMad sent;  // what the answer must show (mad/answer_match.hpp)
    SmpDestination dest = 0;
    Clock::TimePoint sent_at{};
    Clock::TimePoint deadline{};
  };
  using TxPtr = std::shared_ptr<Transaction>;

  // The single transition function of a transaction (see header comment).
  TxState transition(Transaction& tx, TxEvent ev) const;

  void fill_window();
  void send_one(const TxPtr& tx);
  void handle(const IncomingMad& in);
  void expire_deadlines();
  void finish(const TxPtr& tx, const Smp* response, const SmpFailure* failure);
  // Counts and logs (rate-limited) an answer with a live TID that is not its request's.
  void refuse(const Transaction& tx, const IncomingMad& in, const Smp& smp, Mismatch why);
  // Logs (debug) and counts a change of the window after an event.
  void note_window();

  MadTransport& transport_;
  const Clock& clock_;
  Logger log_;
  SmpClientSettings settings_;
  SmpCounters counters_;
  RequestHandler on_request_;
  MkeyResolver mkey_resolver_;
  MadDispatcher dispatcher_;
  std::deque<TxPtr> queue_;
  std::deque<Feed> feeds_;
  std::unordered_map<std::uint32_t, TxPtr> on_wire_;
  // Send order = deadline order (one transaction_timeout for all, fixed until a
  // restart); only a kernel timeout report moves a deadline out of that order.
  std::deque<std::pair<Clock::TimePoint, std::uint32_t>> deadlines_;
  bool deadline_moved_ = false;
  std::uint32_t next_tid_ = 1;
  SmpWindow window_;
  SmpLoss loss_;
  // Timeouts the window puts down to random loss: each send adds the expected share
  // (SmpLoss::random_loss), each such timeout takes one.
  double loss_credit_ = 0;
  unsigned logged_window_ = 0;
  LogLimit mismatch_log_;
};

}  // namespace ibsm::mad
