#include "sm/election/election_rules.hpp"

namespace ibsm::sm::election {

SetVerdict judge_sminfo_set(SmState own, SmState sender, std::uint32_t control) {
  if (control < 1 || control > 5) return SetVerdict::kUnknownControl;
  const auto c = static_cast<SmControl>(control);
  // Who may send what: only a STANDBY acknowledges; the other controls come from
  // the master (C14-38.1.1 ff.).
  const SmState needed = c == SmControl::kAcknowledge ? SmState::kStandby : SmState::kMaster;
  if (sender != needed) return SetVerdict::kBadSenderState;
  bool ok = false;
  switch (own) {
    case SmState::kDiscovering:
      ok = c == SmControl::kHandover;
      break;
    case SmState::kStandby:
      ok = c == SmControl::kDiscover || c == SmControl::kDisable || c == SmControl::kHandover ||
           c == SmControl::kAcknowledge;
      break;
    case SmState::kNotActive:
      ok = c == SmControl::kStandby;
      break;
    case SmState::kMaster:
      ok = c == SmControl::kHandover;  // two masters resolving: the lower one hands over
      break;
  }
  return ok ? SetVerdict::kAccept : SetVerdict::kBadOwnState;
}

std::string_view verdict_name(SetVerdict v) {
  switch (v) {
    case SetVerdict::kAccept:
      return "accepted";
    case SetVerdict::kBadSenderState:
      return "sender state may not send this control";
    case SetVerdict::kBadOwnState:
      return "not accepted in our state";
    case SetVerdict::kUnknownControl:
      return "unknown control (attribute modifier)";
  }
  return "?";
}

std::string_view event_name(Event e) {
  switch (e) {
    case Event::kDiscoveredMasterOrHigher:
      return "master or higher SM discovered";
    case Event::kDiscoveredNoneHigher:
      return "discovery found no higher SM";
    case Event::kPollTimeout:
      return "polled SM stopped answering";
    case Event::kHandoverReceived:
      return "HANDOVER received";
    case Event::kAcknowledgeReceived:
      return "ACKNOWLEDGE received";
    case Event::kDisableReceived:
      return "DISABLE received";
    case Event::kStandbyReceived:
      return "STANDBY received";
    case Event::kDiscoverReceived:
      return "DISCOVER received";
    case Event::kHandoverSent:
      return "handed over to a higher SM";
    case Event::kOwnPortDown:
      return "own port down";
    case Event::kHigherSmGone:
      return "the SM we waited for vanished";
  }
  return "?";
}

std::string_view action_name(Action a) {
  switch (a) {
    case Action::kNone:
      return "none";
    case Action::kSweep:
      return "sweep";
    case Action::kFirstMasterSweep:
      return "first master sweep";
    case Action::kStartPolling:
      return "start polling";
    case Action::kStopPolling:
      return "stop polling";
  }
  return "?";
}

Transition transition(SmState s, Event e) {
  using A = Action;
  using S = SmState;
  switch (s) {
    case S::kDiscovering:
      switch (e) {
        case Event::kDiscoveredNoneHigher:
          return {S::kMaster, A::kFirstMasterSweep};
        case Event::kDiscoveredMasterOrHigher:
          return {S::kStandby, A::kStartPolling};
        case Event::kHandoverReceived:
          return {S::kDiscovering, A::kSweep};  // ends as MASTER
        case Event::kOwnPortDown:
          return {S::kDiscovering};
        default:
          break;
      }
      break;
    case S::kStandby:
      switch (e) {
        case Event::kPollTimeout:
        case Event::kDiscoverReceived:
          return {S::kDiscovering, A::kStopPolling, A::kSweep};
        case Event::kHandoverReceived:
          return {S::kMaster, A::kStopPolling, A::kFirstMasterSweep};
        case Event::kDisableReceived:
          return {S::kNotActive, A::kStopPolling};
        case Event::kAcknowledgeReceived:
          return {S::kStandby};
        case Event::kStandbyReceived:
          return {S::kStandby};
        case Event::kOwnPortDown:
          return {S::kDiscovering, A::kStopPolling};
        default:
          break;
      }
      break;
    case S::kNotActive:
      switch (e) {
        case Event::kStandbyReceived:
          return {S::kStandby, A::kStartPolling};
        default:
          break;
      }
      break;
    case S::kMaster:
      switch (e) {
        case Event::kHandoverReceived:
        case Event::kHigherSmGone:
          return {S::kMaster, A::kStopPolling, A::kFirstMasterSweep};
        case Event::kHandoverSent:
          return {S::kStandby, A::kStartPolling};
        case Event::kDiscoveredMasterOrHigher:
          return {S::kMaster, A::kStartPolling};
        case Event::kDiscoveredNoneHigher:
          return {S::kMaster};
        case Event::kOwnPortDown:
          return {S::kDiscovering, A::kStopPolling};
        default:
          break;
      }
      break;
  }
  Transition t{s};
  t.valid = false;
  return t;
}

}  // namespace ibsm::sm::election
