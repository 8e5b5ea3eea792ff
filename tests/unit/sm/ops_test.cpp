// The operator seam (ops/): the event encoder, the bus's bounded queues, the
// snapshot publisher across threads, the control queue, and the port/link/LID diff.
#include <gtest/gtest.h>

#include <thread>

#include "ops/control_queue.hpp"
#include "ops/event_bus.hpp"
#include "ops/fabric_diff.hpp"
#include "ops/ops_publisher.hpp"

namespace ibsm::ops {
namespace {

using namespace std::chrono_literals;

std::chrono::system_clock::time_point at(long long ms) {
  return std::chrono::system_clock::time_point(std::chrono::milliseconds(ms));
}

TEST(EventEncoder, JsonHasTimeSeqIdTypeAndFields) {
  Event e;
  e.seq = 7;
  e.time = at(1795000000123);  // 2026-11-18T...
  e.type = EventType::kSweepFinished;
  e.fields = {{"kind", std::string("heavy")},
              {"seconds", 0.5},
              {"subnet_up", true},
              {"mads_sent", std::uint64_t{42}},
              {"delta", std::int64_t{-3}}};
  EXPECT_EQ(
      encode_json(e),
      "{\"time\":\"2026-11-18T11:06:40.123Z\",\"seq\":7,\"id\":202,\"type\":\"sweep_finished\","
      "\"fields\":{\"kind\":\"heavy\",\"seconds\":0.5,\"subnet_up\":true,\"mads_sent\":42,"
      "\"delta\":-3}}");
}

TEST(EventEncoder, JsonEscapesControlCharactersQuotesAndBackslashes) {
  Event e;
  e.time = at(0);
  e.type = EventType::kControl;
  e.fields = {{"command", std::string("a\"b\\c\nd\x01\x7f")}};
  EXPECT_EQ(encode_json(e),
            "{\"time\":\"1970-01-01T00:00:00.000Z\",\"seq\":0,\"id\":902,\"type\":\"control\","
            "\"fields\":{\"command\":\"a\\\"b\\\\c\\nd\\u0001\\u007f\"}}");
}

TEST(EventEncoder, NonFiniteDoubleIsNull) {
  Event e;
  e.time = at(0);
  e.type = EventType::kRouting;
  e.fields = {{"mean_efi", std::numeric_limits<double>::quiet_NaN()}};
  EXPECT_NE(encode_json(e).find("\"mean_efi\":null"), std::string::npos);
}

TEST(EventEncoder, TextQuotesValuesWithSpaces) {
  Event e;
  e.time = at(0);
  e.type = EventType::kPortState;
  e.fields = {{"node_desc", std::string("sw 1")}, {"port", std::uint64_t{3}}};
  EXPECT_EQ(encode_text(e), "1970-01-01T00:00:00.000Z port_state(301) node_desc=\"sw 1\" port=3");
}

// A value with a line feed but no blank used to go out bare: a NodeDescription could
// forge a second event line in the text form. Bytes that are not UTF-8 go out as U+FFFD.
TEST(EventEncoder, TextQuotesValuesWithControlsOrBadBytes) {
  Event e;
  e.time = at(0);
  e.type = EventType::kPortState;
  e.fields = {{"node_desc", std::string("h1\nforged(1)")},
              {"node_name", std::string("h4\xff")},
              {"port", std::uint64_t{3}}};
  EXPECT_EQ(encode_text(e),
            "1970-01-01T00:00:00.000Z port_state(301) node_desc=\"h1\\nforged(1)\" "
            "node_name=\"h4\xef\xbf\xbd\" port=3");
  EXPECT_NE(encode_json(e).find("\"node_name\":\"h4\xef\xbf\xbd\""), std::string::npos);
}

TEST(EventTypes, IdsAreUniqueAndNamed) {
  std::set<unsigned> ids;
  std::set<std::string_view> names;
  for (EventType t : all_event_types()) {
    EXPECT_TRUE(ids.insert(static_cast<unsigned>(t)).second);
    EXPECT_TRUE(names.insert(event_type_name(t)).second);
    EXPECT_NE(event_type_name(t), "unknown");
  }
}

TEST(EventBus, EveryReaderGetsEveryEventInOrder) {
  EventBus bus(10, [] { return at(5); });
  auto a = bus.subscribe(8);
  auto b = bus.subscribe(8);
  bus.emit(EventType::kTrap, {{"trap", std::uint64_t{128}}});
  bus.emit(EventType::kLinkDown, {});
  for (auto* s : {&a, &b}) {
    auto got = (*s)->take();
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0]->seq, 1u);
    EXPECT_EQ(got[0]->type, EventType::kTrap);
    EXPECT_EQ(got[1]->seq, 2u);
    EXPECT_EQ(got[1]->time, at(5));
  }
}

TEST(EventBus, FullQueueDropsCountsAndTellsTheReader) {
  EventBus bus(100);
  auto slow = bus.subscribe(2);
  auto fast = bus.subscribe(100);
  for (int i = 0; i < 5; ++i)
    bus.emit(EventType::kTrap, {});
  EXPECT_EQ(slow->dropped_total(), 3u);
  EXPECT_EQ(bus.stats().dropped, 3u);
  EXPECT_EQ(bus.stats().emitted, 5u);
  auto got = slow->take();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0]->type, EventType::kEventsDropped);
  EXPECT_EQ(std::get<std::uint64_t>(*got[0]->field("dropped")), 3u);
  EXPECT_EQ(std::get<std::uint64_t>(*got[0]->field("first_seq")), 3u);
  EXPECT_EQ(std::get<std::uint64_t>(*got[0]->field("last_seq")), 5u);
  EXPECT_EQ(got[1]->seq, 1u);
  EXPECT_EQ(fast->take().size(), 5u);  // the slow reader cost the fast one nothing
  bus.emit(EventType::kTrap, {});
  got = slow->take();
  ASSERT_EQ(got.size(), 1u);  // no second drop report once it kept up
  EXPECT_EQ(got[0]->seq, 6u);
}

TEST(EventBus, ReleasedReadersAreForgottenAndHistoryIsBounded) {
  EventBus bus(3);
  {
    auto gone = bus.subscribe(1);
    EXPECT_EQ(bus.stats().subscribers, 1u);
  }
  for (int i = 0; i < 5; ++i)
    bus.emit(EventType::kTrap, {});
  EXPECT_EQ(bus.stats().subscribers, 0u);
  auto h = bus.history(10);
  ASSERT_EQ(h.size(), 3u);
  EXPECT_EQ(h.front()->seq, 3u);
  EXPECT_EQ(bus.history(1).front()->seq, 5u);
}

TEST(EventBus, AStuckReaderNeverBlocksEmit) {
  EventBus bus(0);
  std::atomic<int> wakes{0};
  auto stuck = bus.subscribe(4, [&] { ++wakes; });
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 100000; ++i)
    bus.emit(EventType::kTrap, {});
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);  // bounded work, no waiting
  EXPECT_EQ(wakes.load(), 4);
  EXPECT_EQ(stuck->dropped_total(), 100000u - 4u);
}

TEST(EventBus, ThreadedReaderWakesUp) {
  EventBus bus;
  auto sub = bus.subscribe(16);
  std::thread reader([&] {
    std::size_t n = 0;
    while (n < 3) {
      if (sub->wait(5s)) n += sub->take().size();
    }
  });
  for (int i = 0; i < 3; ++i)
    bus.emit(EventType::kSweepStarted, {});
  reader.join();
  SUCCEED();
}

TEST(OpsPublisher, ReadersSeeWholeSnapshotsFromAnotherThread) {
  OpsPublisher pub;
  EXPECT_EQ(pub.current(), nullptr);
  std::atomic<bool> done{false};
  std::atomic<std::uint64_t> bad{0};
  std::thread reader([&] {
    while (!done.load()) {
      auto s = pub.current();
      if (s && s->sweeps != s->generation * 2) ++bad;
    }
  });
  for (std::uint64_t g = 1; g <= 2000; ++g) {
    auto s = std::make_shared<OpsSnapshot>();
    s->generation = g;
    s->sweeps = 2 * g;
    pub.publish(std::move(s));
  }
  done = true;
  reader.join();
  EXPECT_EQ(bad.load(), 0u);
  EXPECT_EQ(pub.current()->generation, 2000u);
}

TEST(ControlQueue, KeepsOrderAndRefusesBeyondItsLimit) {
  ControlQueue q;
  for (int i = 0; i < 3; ++i) {
    ControlRequest r;
    r.command = std::to_string(i);
    EXPECT_TRUE(q.push(std::move(r), 3));
  }
  EXPECT_FALSE(q.push(ControlRequest{}, 3));
  auto got = q.take();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].command, "0");
  EXPECT_EQ(got[2].command, "2");
  EXPECT_TRUE(q.take().empty());
}

PortFacts port(mad::PortState st, mad::Lid lid, mad::Guid peer, mad::PortNum pp) {
  PortFacts f;
  f.state = st;
  f.lid = lid;
  f.peer_node = peer;
  f.peer_port = pp;
  f.node_desc = "n";
  return f;
}

TEST(FabricDiff, FirstSweepReportsNothing) {
  PortIndex after{{{0x10, 1}, port(mad::PortState::kActive, 5, 0x20, 1)}};
  EXPECT_TRUE(diff_fabric({}, after).empty());
}

TEST(FabricDiff, LinkDownIsOneEventAndBothPortsChangeState) {
  PortIndex before{{{0x10, 1}, port(mad::PortState::kActive, 5, 0x20, 3)},
                   {{0x20, 3}, port(mad::PortState::kActive, 0, 0x10, 1)}};
  PortIndex after{{{0x10, 1}, port(mad::PortState::kDown, 5, 0, 0)}};
  auto changes = diff_fabric(before, after);
  int downs = 0, states = 0;
  for (const auto& c : changes) {
    downs += c.type == EventType::kLinkDown;
    states += c.type == EventType::kPortState;
  }
  EXPECT_EQ(downs, 1);
  EXPECT_EQ(states, 2);  // 0x10/1 Active->Down, 0x20/3 vanished
}

TEST(FabricDiff, LidAssignedAndChanged) {
  PortIndex before{{{0x10, 1}, port(mad::PortState::kActive, 5, 0x20, 3)},
                   {{0x30, 1}, port(mad::PortState::kActive, 0, 0x20, 4)}};
  PortIndex after{{{0x10, 1}, port(mad::PortState::kActive, 9, 0x20, 3)},
                  {{0x30, 1}, port(mad::PortState::kActive, 7, 0x20, 4)}};
  auto changes = diff_fabric(before, after);
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].type, EventType::kLidChanged);
  EXPECT_EQ(changes[1].type, EventType::kLidAssigned);
}

}  // namespace
}  // namespace ibsm::ops
