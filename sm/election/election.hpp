// The SM's election driver (IBA 14.4.1): owns the SM state, the other SMs this
// SM knows, answers SubnGet/SubnSet(SMInfo), polls the master while STANDBY and
// hands mastership over. The state machine itself is the pure transition
// function of election_rules.hpp; this class feeds it events and carries out
// what comes back with the SMP client. SubnetManager runs the sweeps it asks for.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "mad/attr/sm_info.hpp"
#include "mad/smp.hpp"
#include "mad/smp_client.hpp"
#include "sm/election/election_rules.hpp"
#include "sm/fabric/fabric.hpp"

namespace ibsm::sm::election {

struct Settings {
  std::uint8_t priority = 0;  // sm_priority
  // master_sm_priority: the priority a MASTER advertises (0 = sm_priority). A
  // recovered SM of higher sm_priority then stays STANDBY instead of taking the
  // fabric back (no automatic fail-back); OpenSM has no such key.
  std::uint8_t master_priority = 0;
  std::uint64_t sm_key = 1;
  Clock::Duration poll_interval = std::chrono::milliseconds(250);  // sminfo_polling_timeout
  unsigned poll_retries = 2;                                       // polling_retry_number
  bool ignore_other_sm = false;
};

// Another SM as its last SMInfo answer described it.
struct RemoteSm {
  Guid guid = 0;          // its SM port GUID
  mad::SmpTarget target;  // DR path found by discovery, or its LID
  Lid lid = 0;
  std::uint8_t priority = 0;
  SmState state = SmState::kNotActive;
  std::uint32_t act_count = 0;
  bool answered = false;  // answered the last query (else treated as NOTACTIVE)
};

// What the election asks the SubnetManager to do next.
enum class SweepRequest : std::uint8_t {
  kNone,
  kSweep,             // a heavy sweep (DISCOVERING: it decides MASTER or STANDBY)
  kFirstMasterSweep,  // a new master: heavy sweep that re-programs everything
};

class Election {
 public:
  Election(mad::SmpClient& client, const Clock& clock, Logger log, Settings settings, Guid own_guid,
           SmState initial);

  SmState state() const { return state_; }
  // Called after every state change (the SM opens or closes the SA, forgets what it
  // programmed, ...).
  using StateListener = std::function<void(SmState from, SmState to)>;
  void set_state_listener(StateListener l) { on_state_ = std::move(l); }
  const Settings& settings() const { return settings_; }
  void set_settings(const Settings& s);
  // Our SM port's LID (the issuer of our traps), known after discovery.
  void set_own_lid(Lid lid) { own_lid_ = lid; }
  // SMInfo as we answer it: advertised priority, state, a moving ActCount.
  mad::SmInfo own_info() const;
  std::uint8_t advertised_priority() const;

  // SubnGet/SubnSet(SMInfo) addressed to us (IBA 14.4.1, OpenSM's legality table).
  // `hide_sm_key`: our port's M_Key rules say the requester may not see our SM_Key
  // (IBA C14-67: ProtectBits 1 and a wrong M_Key; sm/mkey/mkey_rules.hpp): answer with 0.
  void on_sminfo(const mad::Smp& request, const mad::IncomingMad& raw, bool hide_sm_key = false);

  // Heavy sweep: queue SubnGet(SMInfo) to every other port that advertises IsSM
  // (answers arrive while the caller drains the SMP client).
  void query_sms(const Fabric& f);
  // After those answers. DISCOVERING: a MASTER or a higher SM seen -> STANDBY
  // (returns false: the sweep stops, nothing is programmed), else -> MASTER. MASTER:
  // a higher SM -> hand over (returns false while the HANDOVER is pending).
  bool after_discovery();
  // Light sweep of a master: SubnGet(SMInfo) to the SMs it knows; a remote MASTER or
  // a higher SM asks for a heavy sweep (OpenSM's rule, so split brains merge).
  void poll_known_sms();

  // Between sweeps: the STANDBY's (or waiting MASTER's) poll and its timeout.
  void tick();
  SweepRequest take_sweep_request();

  // Operator's handover (SIGUSR2): hands the fabric to the best other SM and keeps
  // advertising priority 0 so it does not take it back. False when there is none.
  bool hand_over_manually();

  const std::map<Guid, RemoteSm>& remotes() const { return remotes_; }
  std::optional<Guid> polled() const { return polled_; }
  // Leaving STANDBY: the fabric changed master (the caller re-programs everything).
  bool coming_out_of_standby() const { return out_of_standby_; }
  void clear_coming_out_of_standby() { out_of_standby_ = false; }

 private:
  void apply(Event e, std::string_view detail);
  void carry_out(Action a);
  void start_polling(Guid target);
  void send_poll();
  void on_poll_answer(Guid target, const mad::SmpOutcome& o);
  bool accept_answer(const mad::SmpRequest& req, Guid expected, const mad::Smp& resp,
                     mad::SmInfo& out);
  void send_handover(const RemoteSm& to);
  void send_trap144(const RemoteSm& master);
  const RemoteSm* best_remote(bool masters_only) const;
  bool outranks_us(const RemoteSm& r) const;
  void warn_key_mismatch(Guid guid, std::uint64_t key);

  mad::SmpClient& client_;
  StateListener on_state_;
  const Clock& clock_;
  Logger log_;
  Settings settings_;
  Guid own_guid_;
  Lid own_lid_ = 0;
  SmState state_;
  std::map<Guid, RemoteSm> remotes_;  // by SM port GUID
  SweepRequest pending_ = SweepRequest::kNone;
  bool out_of_standby_ = false;
  bool yielded_ = false;           // a manual handover: advertise priority 0
  bool handover_pending_ = false;  // a HANDOVER is on the wire

  // Polling (STANDBY: the master; MASTER: a lower master we wait for).
  std::optional<Guid> polled_;
  Clock::TimePoint next_poll_{};
  unsigned unanswered_ticks_ = 0;
  std::optional<Clock::TimePoint> not_master_since_;  // polled SM answers, but not as MASTER
  Clock::TimePoint last_trap144_{};
  bool trap144_sent_ = false;
  std::map<Guid, Clock::TimePoint> key_warned_;
  std::map<Guid, Clock::TimePoint> refused_;  // SMs that refused our HANDOVER, when
  std::uint32_t next_trap_tid_ = 0x40000000;  // our traps' TIDs (answers are dropped)
  std::optional<Guid> next_target_;           // context of the event being applied
};

}  // namespace ibsm::sm::election
