// SaServer: the Subnet Administrator (IBA chapter 15) on the SM's port.
//
// The SM's dispatcher hands it every class 0x03 MAD. A request is answered at
// once, on the SM's thread, from the snapshot the last completed sweep published;
// nothing blocks and nothing waits for a sweep. The rules OpenSM applies before
// any record handler runs (osm_sa_mad_ctrl.c) are here: answer only as MASTER
// after the first sweep, drop a wrong non-zero SM_Key, drop unknown attributes
// and methods, status 0x0C for a known attribute with a method it does not take.
// Get/GetTable rules (NO_RECORDS, TOO_MANY_RECORDS, empty tables) are applied to
// what the attribute's handler found. Responses are framed for the transport:
// one RMPP message through the kernel, or a single trimmed MAD (umad2sim).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "mad/transport.hpp"
#include "sa/context.hpp"
#include "sa/sa_mad.hpp"
#include "sa/settings.hpp"
#include "sa/snapshot.hpp"
#include "sa/state.hpp"

namespace ibsm::mad {
struct Notice;
}  // namespace ibsm::mad

namespace ibsm::sa {

struct SaCounters {
  std::uint64_t received = 0;           // SA MADs handed to us
  std::uint64_t answered = 0;           // responses sent
  std::uint64_t errors = 0;             // responses with a non-zero status
  std::uint64_t not_serving = 0;        // dropped: not master or before the first sweep
  std::uint64_t bad_key = 0;            // dropped: wrong non-zero SM_Key
  std::uint64_t malformed = 0;          // dropped: not an SA MAD, too short
  std::uint64_t unsupported = 0;        // dropped: unknown attribute or method
  std::uint64_t unknown_requester = 0;  // dropped: source LID not in the subnet
  std::uint64_t trimmed = 0;            // tables cut to one MAD (transport without RMPP)
  std::uint64_t send_failed = 0;
  std::uint64_t responses_in = 0;            // ReportResp and other responses received
  std::array<std::uint64_t, 256> by_attr{};  // requests by attribute (low byte of the ID)
};

class SaServer {
 public:
  SaServer(mad::MadTransport& transport, const Clock& clock, Logger log, SaSettings settings);

  // The SM's sweep published a new snapshot (nullptr: none yet). Ports that
  // appeared or vanished since the previous one are reported to subscribers
  // (traps 64/65, sa/events.cpp); their alias tables go with them. The first one
  // brings back the alias GUIDs of sa_db_file.
  void publish(MutableSnapshotPtr snapshot);
  // publish(build()), with the old snapshot cut down to what the reports of ports
  // that left need (port_presence) while `build` runs, unless something besides the
  // SA still holds it: a big fabric never has two whole snapshots alive at once. The
  // SA answers nothing meanwhile (it runs on the SM's thread, so nothing asks).
  void rebuild(const std::function<MutableSnapshotPtr()>& build);
  // Changes the published snapshot in a way that leaves its nodes, ports and groups
  // as they are (the MFTs the switches confirmed): in place when the SA alone holds
  // it, which nobody can observe but through the next answer, else on a copy that
  // replaces it. A copy of a 5832-host fabric's snapshot is 29 MB and 25 ms.
  void amend(const std::function<void(Snapshot&)>& change);
  SnapshotPtr snapshot() const { return snapshot_; }
  // IBA 15.4.1 / OpenSM: the SA answers only while the SM is MASTER and its first
  // sweep is done.
  void set_serving(bool serving) { serving_ = serving; }
  bool serving() const { return serving_; }
  void set_settings(const SaSettings& s) { settings_ = s; }
  const SaSettings& settings() const { return settings_; }

  // One MAD of class 0x03 from the wire.
  void handle(const mad::IncomingMad& in);
  // Timers: lease expiry, Report retries. Called from the SM's loop.
  void tick();

  // Event forwarding (sa/events.cpp, IBA 13.4.8): a trap the SM received from
  // the fabric (`source_lid`: where it came from; traps 129-131 are not
  // forwarded, as in OpenSM), and the multicast group traps 66 (created) and 67
  // (deleted), forwarded to subscribers whose port holds the group's P_Key.
  void forward_trap(const mad::Notice& notice, Lid source_lid);
  void report_group_change(bool created, const Gid& mgid, std::uint16_t pkey);

  // The SA database (sa/sa_db.cpp, OpenSM's format): restores service records
  // and subscriptions from sa_db_file (start-up), alias GUIDs once a snapshot has
  // their ports; writes opensm-sa.dump when sa_db_dump is set and something
  // changed (after sweeps). A bad file is logged with its line and returned; the
  // SA keeps what it read before it.
  Status load_db();
  bool dump_db();

  // Answers a request without the wire (benchmarks, tests): the response bytes.
  SaResponse answer(const SaMad& request, const mad::MadAddress& from);

  const SaCounters& counters() const { return counters_; }
  SaState& state() { return *state_; }
  Framing framing() const {
    return transport_.max_gsi_length() > kMadSize ? Framing::kKernelRmpp : Framing::kSingleMad;
  }

 private:
  // Logs at most a few lines per kind and then every 2^k-th.
  void log_dropped(std::uint64_t count, std::string_view what, const mad::IncomingMad& in);
  bool respond(const SaResponse& r, const mad::MadAddress& to);
  // Traps 64/65 for ports new in `now` or gone since `previous` (sa/events.cpp).
  void report_port_changes(const Snapshot* previous, const Snapshot& now);
  // The GUIDInfo blocks of sa_db_file into the alias tables, once a snapshot shows
  // their ports (sa/sa_db.cpp).
  void restore_db_aliases();
  // The multicast group store follows the snapshot: configured groups, the MLID
  // limit of the switches, members of ports that left (trap 67 for groups ended so).
  void publish_groups();
  void publish_after(SnapshotPtr previous);

  mad::MadTransport& transport_;
  const Clock& clock_;
  Logger log_;
  SaSettings settings_;
  MutableSnapshotPtr snapshot_;
  bool serving_ = false;
  SaCounters counters_;
  std::unique_ptr<SaState> state_;
  bool trim_logged_ = false;
};

}  // namespace ibsm::sa
