// The election rules as pure functions: ranking, the SubnSet(SMInfo) legality
// table and every state x event of the SM state machine (IBA 14.4.1).
#include <gtest/gtest.h>

#include "sm/election/election_rules.hpp"

namespace ibsm::sm::election {
namespace {

using S = SmState;

TEST(ElectionRank, PriorityThenLowerGuid) {
  EXPECT_TRUE(outranks({0x20, 5}, {0x10, 4}));
  EXPECT_FALSE(outranks({0x10, 4}, {0x20, 5}));
  EXPECT_TRUE(outranks({0x10, 5}, {0x20, 5}));  // equal priority: lower GUID wins
  EXPECT_FALSE(outranks({0x20, 5}, {0x10, 5}));
  EXPECT_FALSE(outranks({0x10, 5}, {0x10, 5}));  // nobody outranks itself
}

TEST(SmInfoSetLegality, OpenSmsTable) {
  // (own state, sender state, control) -> accepted?
  struct Row {
    S own, sender;
    std::uint32_t control;
    SetVerdict want;
  };
  const Row rows[] = {
      {S::kDiscovering, S::kMaster, 1, SetVerdict::kAccept},
      {S::kDiscovering, S::kMaster, 5, SetVerdict::kBadOwnState},
      {S::kStandby, S::kMaster, 1, SetVerdict::kAccept},
      {S::kStandby, S::kMaster, 3, SetVerdict::kAccept},
      {S::kStandby, S::kMaster, 5, SetVerdict::kAccept},
      {S::kStandby, S::kStandby, 2, SetVerdict::kAccept},
      {S::kStandby, S::kMaster, 2, SetVerdict::kBadSenderState},  // ACK only from a STANDBY
      {S::kStandby, S::kMaster, 4, SetVerdict::kBadOwnState},
      {S::kStandby, S::kStandby, 1, SetVerdict::kBadSenderState},  // sminfo without -s 3
      {S::kNotActive, S::kMaster, 4, SetVerdict::kAccept},
      {S::kNotActive, S::kMaster, 5, SetVerdict::kBadOwnState},
      {S::kMaster, S::kMaster, 1, SetVerdict::kAccept},
      {S::kMaster, S::kMaster, 3, SetVerdict::kBadOwnState},  // a MASTER takes only HANDOVER
      {S::kMaster, S::kMaster, 5, SetVerdict::kBadOwnState},
      {S::kMaster, S::kMaster, 0, SetVerdict::kUnknownControl},
      {S::kMaster, S::kMaster, 6, SetVerdict::kUnknownControl},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(judge_sminfo_set(r.own, r.sender, r.control), r.want)
        << mad::sm_state_name(r.own) << " from " << mad::sm_state_name(r.sender) << " control "
        << r.control;
  }
}

TEST(SmStateMachine, EveryStateAndEvent) {
  const Event all[] = {Event::kDiscoveredMasterOrHigher,
                       Event::kDiscoveredNoneHigher,
                       Event::kPollTimeout,
                       Event::kHandoverReceived,
                       Event::kAcknowledgeReceived,
                       Event::kDisableReceived,
                       Event::kStandbyReceived,
                       Event::kDiscoverReceived,
                       Event::kHandoverSent,
                       Event::kOwnPortDown,
                       Event::kHigherSmGone};
  // The expected next state; kNoChange marks an event the state ignores.
  struct Expect {
    S state;
    Event event;
    S next;
    bool valid;
  };
  const Expect table[] = {
      {S::kDiscovering, Event::kDiscoveredNoneHigher, S::kMaster, true},
      {S::kDiscovering, Event::kDiscoveredMasterOrHigher, S::kStandby, true},
      {S::kDiscovering, Event::kHandoverReceived, S::kDiscovering, true},
      {S::kDiscovering, Event::kOwnPortDown, S::kDiscovering, true},
      {S::kStandby, Event::kPollTimeout, S::kDiscovering, true},
      {S::kStandby, Event::kDiscoverReceived, S::kDiscovering, true},
      {S::kStandby, Event::kHandoverReceived, S::kMaster, true},
      {S::kStandby, Event::kDisableReceived, S::kNotActive, true},
      {S::kStandby, Event::kAcknowledgeReceived, S::kStandby, true},
      {S::kStandby, Event::kStandbyReceived, S::kStandby, true},
      {S::kStandby, Event::kOwnPortDown, S::kDiscovering, true},
      {S::kNotActive, Event::kStandbyReceived, S::kStandby, true},
      {S::kMaster, Event::kHandoverReceived, S::kMaster, true},
      {S::kMaster, Event::kHigherSmGone, S::kMaster, true},
      {S::kMaster, Event::kHandoverSent, S::kStandby, true},
      {S::kMaster, Event::kDiscoveredMasterOrHigher, S::kMaster, true},
      {S::kMaster, Event::kDiscoveredNoneHigher, S::kMaster, true},
      {S::kMaster, Event::kOwnPortDown, S::kDiscovering, true},
  };
  for (S s : {S::kNotActive, S::kDiscovering, S::kStandby, S::kMaster}) {
    for (Event e : all) {
      const Transition t = transition(s, e);
      const Expect* want = nullptr;
      for (const Expect& x : table)
        if (x.state == s && x.event == e) want = &x;
      if (want == nullptr) {
        EXPECT_FALSE(t.valid) << mad::sm_state_name(s) << " / " << event_name(e);
        EXPECT_EQ(t.next, s);
        continue;
      }
      EXPECT_TRUE(t.valid) << mad::sm_state_name(s) << " / " << event_name(e);
      EXPECT_EQ(t.next, want->next) << mad::sm_state_name(s) << " / " << event_name(e);
    }
  }
  // The actions that make a new master re-program everything.
  EXPECT_EQ(transition(S::kStandby, Event::kHandoverReceived).action2, Action::kFirstMasterSweep);
  EXPECT_EQ(transition(S::kDiscovering, Event::kDiscoveredNoneHigher).action,
            Action::kFirstMasterSweep);
  EXPECT_EQ(transition(S::kStandby, Event::kPollTimeout).action2, Action::kSweep);
}

}  // namespace
}  // namespace ibsm::sm::election
