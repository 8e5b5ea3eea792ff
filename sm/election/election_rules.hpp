// The rules SMs use to find their master (IBA 14.4.1), as pure functions:
// which SM outranks which, which SubnSet(SMInfo) a given state may accept, and
// the SM state machine's one transition function. No I/O, no clock: the SM's
// election driver (sm/election/election.hpp) feeds events in and carries out
// the actions that come back.
#pragma once

#include <cstdint>
#include <string_view>

#include "mad/attr/sm_info.hpp"
#include "mad/types.hpp"

namespace ibsm::sm::election {

using mad::Guid;
using mad::SmControl;
using mad::SmState;

struct SmRank {
  Guid guid = 0;
  std::uint8_t priority = 0;
};

// IBA 14.4.1.2: the SM with the higher priority wins; on equal priority the one
// with the numerically lower port GUID.
constexpr bool outranks(const SmRank& a, const SmRank& b) {
  if (a.priority != b.priority) return a.priority > b.priority;
  return a.guid < b.guid;
}

// Whether a SubnSet(SMInfo) may be acted on (IBA 14.4.1 table 192, as OpenSM
// 3.3.23's osm_sminfo_rcv.c applies it). Refusals are answered with MAD status 7.
enum class SetVerdict : std::uint8_t {
  kAccept,
  kBadSenderState,  // ACKNOWLEDGE must come from a STANDBY, the others from a MASTER
  kBadOwnState,     // this state does not take that control (a MASTER only HANDOVER)
  kUnknownControl,  // attribute modifier outside 1-5
};
SetVerdict judge_sminfo_set(SmState own, SmState sender, std::uint32_t control);
std::string_view verdict_name(SetVerdict v);

// What happens to the SM (IBA 14.4.1 figure 316; OpenSM's osm_sm_state_mgr.c).
enum class Event : std::uint8_t {
  kDiscoveredMasterOrHigher,  // a sweep found a MASTER, or a higher DISCOVERING/STANDBY SM
  kDiscoveredNoneHigher,      // a sweep completed and no SM outranks us
  kPollTimeout,               // the SM we poll stopped answering
  kHandoverReceived,          // SubnSet(SMInfo, HANDOVER) accepted
  kAcknowledgeReceived,
  kDisableReceived,
  kStandbyReceived,
  kDiscoverReceived,
  kHandoverSent,  // we handed over to a higher SM
  kOwnPortDown,
  kHigherSmGone,  // (MASTER) the lower master we waited for vanished
};
std::string_view event_name(Event e);

enum class Action : std::uint8_t {
  kNone,
  kSweep,             // run a (heavy) sweep
  kFirstMasterSweep,  // heavy sweep that re-programs everything (a new master)
  kStartPolling,      // poll the SM named by the event's context
  kStopPolling,
};
std::string_view action_name(Action a);

struct Transition {
  SmState next;
  Action action = Action::kNone;
  Action action2 = Action::kNone;
  bool valid = true;  // false: the event means nothing in this state (logged, ignored)
};

// The single transition function of the SM state machine.
Transition transition(SmState state, Event event);

}  // namespace ibsm::sm::election
