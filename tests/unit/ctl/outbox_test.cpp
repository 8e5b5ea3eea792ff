// ctl/outbox: what a connection owes its client is written in order, from the strings
// it was handed (an answer is not copied or shifted), and a client is judged by what it
// takes: an answer waiting with nothing written for the stall limit, or a backlog
// beyond the answer being written that outgrows the bound, cuts it off; the size of
// the one answer it is taking never does.
#include "ctl/outbox.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace ibsm::ctl {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kOneMiB = 1024 * 1024;
const Clock::TimePoint kT0{1000s};

// Everything the box holds, taken `step` bytes at a time as a socket would.
std::string drain(Outbox& box, std::size_t step, Clock::TimePoint now) {
  std::string out;
  while (!box.empty()) {
    const std::string_view next = box.front().substr(0, step);
    out.append(next);
    box.consumed(next.size(), now);
  }
  return out;
}

TEST(Outbox, WritesAnswersAndStreamInTheOrderQueued) {
  Outbox box;
  box.push_stream("ibsm $ ", kT0);
  box.push_answer("head ", "a\nb\n", ".ok\n", kT0);
  box.push_stream("event 1\n", kT0);
  box.push_stream("event 2\n", kT0);
  box.push_answer("", "", ".err\n", kT0);  // an answer that is only its terminator
  EXPECT_EQ(box.bytes(), 7u + 13u + 16u + 5u);
  EXPECT_EQ(drain(box, 3, kT0), "ibsm $ head a\nb\n.ok\nevent 1\nevent 2\n.err\n");
  EXPECT_TRUE(box.empty());
  EXPECT_FALSE(box.answer_waiting());
}

TEST(Outbox, TheAnswerBeingWrittenIsNotBacklogWhateverItsSize) {
  Outbox box;
  box.push_answer("", std::string(20 * kOneMiB, 'x'), ".ok\n", kT0);
  EXPECT_TRUE(box.answer_waiting());
  EXPECT_EQ(box.backlog(), 0u);
  EXPECT_EQ(judge_outbox(box, kT0, 30s, kOneMiB), OutboxVerdict::kKeep);
  box.consumed(box.front().size() - 10, kT0 + 1s);  // most of it taken
  EXPECT_EQ(box.backlog(), 0u);
  box.push_stream("ibsm $ ", kT0 + 1s);  // behind it: backlog
  EXPECT_EQ(box.backlog(), 7u);
  box.push_answer("", "next\n", ".ok\n", kT0 + 1s);  // a second answer waits behind the first
  EXPECT_EQ(box.backlog(), 7u + 9u);
  EXPECT_EQ(drain(box, 4096, kT0 + 2s).size(), 10u + 4u + 7u + 9u);
  EXPECT_EQ(box.backlog(), 0u);
}

TEST(Outbox, ABacklogBeyondTheBoundCutsTheClientOff) {
  Outbox box;
  box.push_answer("", std::string(5 * kOneMiB, 'x'), ".ok\n", kT0);
  box.push_stream(std::string(kOneMiB, 'e'), kT0);
  EXPECT_EQ(judge_outbox(box, kT0, 30s, kOneMiB), OutboxVerdict::kKeep);
  box.push_stream("one more\n", kT0);
  EXPECT_EQ(judge_outbox(box, kT0, 30s, kOneMiB), OutboxVerdict::kBacklog);
}

TEST(Outbox, ProgressIsJudgedOnTheClock) {
  Outbox box;
  EXPECT_EQ(judge_outbox(box, kT0 + 1h, 30s, kOneMiB), OutboxVerdict::kKeep);  // nothing waits
  box.push_answer("", std::string(kOneMiB, 'x'), ".ok\n", kT0);
  EXPECT_EQ(box.last_progress(), kT0);
  EXPECT_EQ(judge_outbox(box, kT0 + 30s, 30s, kOneMiB), OutboxVerdict::kKeep);
  EXPECT_EQ(judge_outbox(box, kT0 + 31s, 30s, kOneMiB), OutboxVerdict::kStalled);
  // A byte taken now and then is progress: the clock starts again.
  box.consumed(1, kT0 + 29s);
  box.consumed(1, kT0 + 58s);
  EXPECT_EQ(judge_outbox(box, kT0 + 87s, 30s, kOneMiB), OutboxVerdict::kKeep);
  EXPECT_EQ(judge_outbox(box, kT0 + 89s, 30s, kOneMiB), OutboxVerdict::kStalled);
  // A box that empties and fills again starts from its new first byte.
  drain(box, kOneMiB, kT0 + 60s);
  box.push_answer("", "late\n", ".ok\n", kT0 + 500s);
  EXPECT_EQ(judge_outbox(box, kT0 + 520s, 30s, kOneMiB), OutboxVerdict::kKeep);
}

TEST(Outbox, EventsAloneAreNotJudgedByTime) {
  // A follower's events: its subscription drops and counts what it does not take.
  Outbox box;
  box.push_stream("event\n", kT0);
  EXPECT_EQ(judge_outbox(box, kT0 + 1h, 30s, kOneMiB), OutboxVerdict::kKeep);
}

}  // namespace
}  // namespace ibsm::ctl
