// SmpClient: the SM's side of SMP transactions.
//
// Requests are queued and put on the wire while fewer than `window` are
// outstanding (OpenSM's max_wire_smps). Each outstanding request has a deadline
// from the injected Clock; a request that misses it is sent again with a fresh
// TID up to `retries` times, then fails with a timeout. Responses are matched by
// the low 32 bits of the TID (the kernel and umad2sim own the upper bits).
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
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "mad/dispatcher.hpp"
#include "mad/smp.hpp"
#include "mad/transport.hpp"

namespace ibsm::mad {

struct SmpClientSettings {
  unsigned window = 4;                     // max_wire_smps
  std::chrono::milliseconds timeout{200};  // transaction_timeout
  unsigned retries = 3;                    // transaction_retries
};

struct SmpCounters {
  std::uint64_t sent = 0;         // SMPs put on the wire, retries included
  std::uint64_t received = 0;     // responses matched to a request
  std::uint64_t timeouts = 0;     // requests that failed after all retries
  std::uint64_t retries = 0;      // re-sends after a missed deadline
  std::uint64_t errors = 0;       // error status, malformed response or send failure
  std::uint64_t unexpected = 0;   // responses matching no outstanding request
  std::uint64_t unsolicited = 0;  // requests/traps addressed to us
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
  // Sends a response right away, outside the window (answers must not wait
  // behind our own requests).
  void respond(const Smp& response, Lid dlid);
  void set_request_handler(RequestHandler h) { on_request_ = std::move(h); }
  // MADs of other management classes that arrive on the same port (the SA's
  // class 0x03) go to the dispatcher's handler for their class.
  MadDispatcher& dispatcher() { return dispatcher_; }

  // Sends what the window allows, waits up to max_wait for one MAD, handles
  // deadlines. Returns after at most about max_wait.
  void poll(std::chrono::milliseconds max_wait);
  bool idle() const { return queue_.empty() && on_wire_.empty(); }
  std::size_t outstanding() const { return on_wire_.size(); }
  std::size_t queued() const { return queue_.size(); }

  const SmpCounters& counters() const { return counters_; }
  void set_settings(const SmpClientSettings& s) { settings_ = s; }
  const SmpClientSettings& settings() const { return settings_; }

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

  MadTransport& transport_;
  const Clock& clock_;
  Logger log_;
  SmpClientSettings settings_;
  SmpCounters counters_;
  RequestHandler on_request_;
  MadDispatcher dispatcher_;
  std::deque<TxPtr> queue_;
  std::unordered_map<std::uint32_t, TxPtr> on_wire_;
  std::deque<std::pair<Clock::TimePoint, std::uint32_t>> deadlines_;  // send order = deadline order
  std::uint32_t next_tid_ = 1;
};

}  // namespace ibsm::mad
