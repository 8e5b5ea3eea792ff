// SmpClient against a scripted transport and a FakeClock: window, TID matching,
// late and duplicate responses, retries and timeouts with exact attempt counts,
// error statuses, and requests addressed to the SM.
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <functional>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

#include "mad/attr/node_info.hpp"
#include "mad/attr/sm_info.hpp"
#include "mad/smp_client.hpp"
#include "tests/support/log_capture.hpp"

namespace ibsm::mad::smp_client_test {
namespace {

using std::chrono::milliseconds;

// Records what the client sends; the test decides what comes back and when.
class ScriptedTransport final : public MadTransport {
 public:
  explicit ScriptedTransport(FakeClock& clock) : clock_(clock) {}

  Status send(const OutgoingMad& mad) override {
    if (fail_sends) return fail(kErrSendFailed, "scripted send failure");
    sent.push_back(mad);
    const auto s = Smp::parse(mad.bytes);
    if (s.ok() && !s->is_response()) {
      ++in_flight;
      max_in_flight = std::max(max_in_flight, in_flight);
    }
    if (on_send) on_send(mad);
    return {};
  }

  std::optional<IncomingMad> receive(milliseconds max_wait) override {
    if (inbox.empty()) {
      clock_.advance(max_wait);
      return std::nullopt;
    }
    IncomingMad in = inbox.front();
    inbox.pop_front();
    if (in.status == 0 && Smp::parse(in.bytes).ok() && Smp::parse(in.bytes)->is_response() &&
        in_flight > 0)
      --in_flight;
    return in;
  }

  LocalPort local_port() const override { return {}; }

  // Answers sent request `i` with GetResp (data byte 0 = i), optionally with a status.
  void answer(std::size_t i, std::uint16_t status = 0, std::size_t length = kMadSize) {
    auto req = Smp::parse(sent.at(i).bytes);
    std::array<std::uint8_t, kSmpDataSize> data{};
    data[0] = static_cast<std::uint8_t>(i);
    Smp r = req->response(ConstPayload(data));
    IncomingMad in;
    in.bytes = r.bytes();
    in.bytes[8] = 0x2a;  // the kernel's high TID bits must not matter
    // A LID-routed answer comes from the LID it was sent to; a DR one from the
    // permissive LID (the kernel reports no SLID for it).
    in.slid = req->directed() ? kPermissiveLid : sent.at(i).dlid;
    if (status != 0) {
      in.bytes[4] = static_cast<std::uint8_t>((in.bytes[4] & 0x80) | (status >> 8));
      in.bytes[5] = static_cast<std::uint8_t>(status);
    }
    in.length = length;
    if (length < kMadSize)
      std::fill(in.bytes.begin() + static_cast<long>(length), in.bytes.end(), 0);
    inbox.push_back(in);
  }

  std::uint32_t tid_of(std::size_t i) const { return Smp::parse(sent.at(i).bytes)->tid_low(); }

  std::vector<OutgoingMad> sent;
  std::deque<IncomingMad> inbox;
  std::function<void(const OutgoingMad&)> on_send;
  bool fail_sends = false;
  unsigned in_flight = 0;
  unsigned max_in_flight = 0;

 private:
  FakeClock& clock_;
};

struct Outcome {
  bool ok = false;
  SmpFailure failure;
  std::uint8_t data0 = 0;
  std::uint32_t attr_mod = 0;
};

class SmpClientTest : public ::testing::Test {
 protected:
  SmpClientTest() : transport(clock), client(transport, clock, null_logger(), settings()) {}

  static SmpClientSettings settings() {
    SmpClientSettings s;
    s.window = 4;
    s.timeout = milliseconds(200);
    s.retries = 3;
    return s;
  }

  // Submits a Get(NodeInfo) with the given modifier; the outcome lands in outcomes[n].
  void submit(std::uint32_t mod, const SmpTarget& target = DrPath{}) {
    const std::size_t slot = outcomes.size();
    outcomes.emplace_back();
    ++pending;
    client.submit(SmpRequest::get<NodeInfo>(target, mod), [this, slot](const SmpOutcome& o) {
      Outcome& out = outcomes[slot];
      ASSERT_FALSE(done[slot]) << "callback ran twice for request " << slot;
      done[slot] = true;
      --pending;
      out.ok = o.ok();
      out.attr_mod = o.request.attr_mod;
      if (o.ok()) {
        out.data0 = o.response->data()[0];
        EXPECT_EQ(o.response->attr_mod(), o.request.attr_mod);
      } else {
        out.failure = *o.failure;
      }
    });
    done.resize(outcomes.size(), false);
  }

  void run_until_idle(int max_polls = 10000) {
    for (int i = 0; i < max_polls && !client.idle(); ++i)
      client.poll(milliseconds(1000));
    ASSERT_TRUE(client.idle());
  }

  FakeClock clock;
  ScriptedTransport transport;
  SmpClient client;
  std::vector<Outcome> outcomes;
  std::vector<bool> done;
  int pending = 0;
};

TEST_F(SmpClientTest, WindowIsNeverExceededAndEveryRequestCompletes) {
  for (std::uint32_t i = 0; i < 20; ++i)
    submit(i);
  std::size_t answered = 0;
  for (int guard = 0; guard < 1000 && !client.idle(); ++guard) {
    client.poll(milliseconds(0));
    EXPECT_LE(client.outstanding(), 4u);
    // Answer one request per poll, oldest first.
    if (answered < transport.sent.size()) transport.answer(answered++);
  }
  EXPECT_TRUE(client.idle());
  EXPECT_EQ(transport.max_in_flight, 4u);
  EXPECT_EQ(transport.sent.size(), 20u);
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    EXPECT_TRUE(outcomes[i].ok) << i;
    EXPECT_EQ(outcomes[i].attr_mod, i);
  }
  EXPECT_EQ(client.counters().sent, 20u);
  EXPECT_EQ(client.counters().received, 20u);
  EXPECT_EQ(client.counters().retries, 0u);
  EXPECT_EQ(client.counters().unexpected, 0u);
}

// A feed is asked for requests only while the queue is short: 5000 requests never sit
// in the queue at once, every one is sent and completes, in the feed's order, and the
// client is idle only once the feed is exhausted.
TEST_F(SmpClientTest, FeedSubmitsOnDemandAndEveryRequestCompletes) {
  std::uint32_t next = 0;
  std::size_t most_queued = 0;
  client.submit_feed([&](SmpClient&) {
    if (next == 5000) return false;
    submit(next++);
    most_queued = std::max(most_queued, client.queued());
    return true;
  });
  EXPECT_FALSE(client.idle());
  std::size_t answered = 0;
  for (int guard = 0; guard < 100000 && !client.idle(); ++guard) {
    client.poll(milliseconds(0));
    while (answered < transport.sent.size())
      transport.answer(answered++);
  }
  EXPECT_TRUE(client.idle());
  EXPECT_EQ(next, 5000u);
  EXPECT_LE(most_queued, 512u);
  ASSERT_EQ(outcomes.size(), 5000u);
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    EXPECT_TRUE(outcomes[i].ok) << i;
    EXPECT_EQ(outcomes[i].attr_mod, i);
  }
  EXPECT_EQ(pending, 0);
}

// Requests already queued go first; a feed that claims more but submits nothing is
// dropped instead of being asked forever.
TEST_F(SmpClientTest, FeedGoesAfterQueuedRequestsAndAnEmptyFeedIsDropped) {
  submit(100);
  int asked = 0;
  client.submit_feed([&](SmpClient&) {
    ++asked;
    return true;  // faulty: never submits
  });
  std::uint32_t next = 0;
  client.submit_feed([&](SmpClient&) {
    if (next == 3) return false;
    submit(next++);
    return true;
  });
  std::size_t answered = 0;
  for (int guard = 0; guard < 1000 && !client.idle(); ++guard) {
    client.poll(milliseconds(0));
    while (answered < transport.sent.size())
      transport.answer(answered++);
  }
  EXPECT_TRUE(client.idle());
  EXPECT_EQ(asked, 1);
  ASSERT_EQ(transport.sent.size(), 4u);
  EXPECT_EQ(Smp::parse(transport.sent[0].bytes)->attr_mod(), 100u);
  EXPECT_EQ(Smp::parse(transport.sent[1].bytes)->attr_mod(), 0u);
  EXPECT_EQ(Smp::parse(transport.sent[3].bytes)->attr_mod(), 2u);
}

// max_wire_smps 0 is OpenSM's "unlimited": no cap, but not everything at once
// (that was the -n 0 storm): the window starts at kAdaptiveCap and grows past it.
TEST_F(SmpClientTest, ZeroWindowHasNoCapButStartsBounded) {
  SmpClientSettings s = settings();
  s.window = 0;
  SmpClient unlimited(transport, clock, null_logger(), s);
  constexpr std::uint32_t kRequests = 600;
  int completed = 0;
  for (std::uint32_t i = 0; i < kRequests; ++i)
    unlimited.submit(SmpRequest::get<NodeInfo>(Lid(1 + i), i),
                     [&](const SmpOutcome& o) { completed += o.ok(); });
  unlimited.poll(milliseconds(0));
  EXPECT_EQ(transport.sent.size(), SmpClientSettings::kAdaptiveCap);
  std::size_t answered = 0;
  for (int guard = 0; guard < 10000 && !unlimited.idle(); ++guard) {
    while (answered < transport.sent.size())
      transport.answer(answered++);
    unlimited.poll(milliseconds(0));
  }
  EXPECT_EQ(completed, static_cast<int>(kRequests));
  EXPECT_GT(unlimited.counters().peak_window, SmpClientSettings::kAdaptiveCap);
}

TEST_F(SmpClientTest, ResponsesAreMatchedByLowTidInAnyOrder) {
  for (std::uint32_t i = 0; i < 4; ++i)
    submit(100 + i);
  client.poll(milliseconds(0));
  ASSERT_EQ(transport.sent.size(), 4u);
  std::set<std::uint32_t> tids;
  for (std::size_t i = 0; i < 4; ++i)
    tids.insert(transport.tid_of(i));
  EXPECT_EQ(tids.size(), 4u) << "TIDs must be distinct";
  for (std::size_t i = 4; i-- > 0;)
    transport.answer(i);
  run_until_idle();
  for (std::size_t i = 0; i < 4; ++i) {
    ASSERT_TRUE(outcomes[i].ok);
    EXPECT_EQ(outcomes[i].data0, i);  // the response to exactly this request
  }
}

TEST_F(SmpClientTest, TimeoutAfterRetriesWithExactAttemptCount) {
  const auto t0 = clock.now();
  submit(1);
  run_until_idle();
  ASSERT_FALSE(outcomes[0].ok);
  EXPECT_EQ(outcomes[0].failure.kind, SmpFailure::Kind::kTimeout);
  EXPECT_NE(outcomes[0].failure.detail.find("4 attempts"), std::string::npos)
      << outcomes[0].failure.detail;
  EXPECT_EQ(transport.sent.size(), 4u);  // 1 + transaction_retries
  EXPECT_EQ(client.counters().sent, 4u);
  EXPECT_EQ(client.counters().retries, 3u);
  EXPECT_EQ(client.counters().timeouts, 1u);
  EXPECT_EQ(clock.now() - t0, milliseconds(800));  // 4 x transaction_timeout, no sleeping
  std::set<std::uint32_t> tids;
  for (std::size_t i = 0; i < 4; ++i)
    tids.insert(transport.tid_of(i));
  EXPECT_EQ(tids.size(), 4u) << "each attempt gets a fresh TID";
}

// A deadline off the millisecond grid of the polls must still pass: a wait
// truncated to 0 ms short of it never let the clock reach it (the client sat
// with a full window of lost SMPs forever).
TEST_F(SmpClientTest, DeadlineBetweenMillisecondsExpires) {
  const auto t0 = clock.now();
  submit(1);
  client.poll(milliseconds(0));  // sent at t0
  clock.advance(std::chrono::microseconds(500));
  run_until_idle(100);
  ASSERT_FALSE(outcomes[0].ok);
  EXPECT_EQ(outcomes[0].failure.kind, SmpFailure::Kind::kTimeout);
  EXPECT_EQ(transport.sent.size(), 4u);
  EXPECT_LE(clock.now() - t0, milliseconds(804));  // each wait overshoots < 1 ms
}

TEST_F(SmpClientTest, RetriedRequestSucceedsAndLateAnswerIsUnexpected) {
  submit(7);
  client.poll(milliseconds(0));
  ASSERT_EQ(transport.sent.size(), 1u);
  // Nothing comes back in time: the client retries.
  client.poll(milliseconds(1000));
  client.poll(milliseconds(0));
  ASSERT_EQ(transport.sent.size(), 2u);
  EXPECT_EQ(client.counters().retries, 1u);
  // Now the late answer to attempt 1 and the answer to attempt 2 arrive.
  transport.answer(0);
  transport.answer(1);
  run_until_idle();
  ASSERT_TRUE(outcomes[0].ok);
  EXPECT_EQ(outcomes[0].data0, 1);  // from the second attempt
  EXPECT_EQ(client.counters().unexpected, 1u);
  EXPECT_EQ(client.counters().received, 1u);
}

TEST_F(SmpClientTest, DuplicateResponseIsCountedAndIgnored) {
  submit(1);
  client.poll(milliseconds(0));
  transport.answer(0);
  transport.answer(0);
  run_until_idle();
  EXPECT_TRUE(outcomes[0].ok);
  EXPECT_EQ(client.counters().received, 1u);
  EXPECT_EQ(client.counters().unexpected, 1u);
}

TEST_F(SmpClientTest, ErrorStatusIsHandedToTheCallback) {
  submit(1);
  client.poll(milliseconds(0));
  transport.answer(0, kStatusInvalidValue);
  run_until_idle();
  ASSERT_FALSE(outcomes[0].ok);
  EXPECT_EQ(outcomes[0].failure.kind, SmpFailure::Kind::kStatus);
  EXPECT_EQ(outcomes[0].failure.status, kStatusInvalidValue);
  EXPECT_EQ(client.counters().errors, 1u);
  EXPECT_EQ(transport.sent.size(), 1u);  // an answer, even a negative one, is not retried
}

TEST_F(SmpClientTest, ErrorStatusOnLidRoutedSmp) {
  submit(1, Lid{5});
  client.poll(milliseconds(0));
  EXPECT_EQ(transport.sent[0].dlid, 5);
  transport.answer(0, kStatusAttrUnsupported);
  run_until_idle();
  ASSERT_FALSE(outcomes[0].ok);
  EXPECT_EQ(outcomes[0].failure.status, kStatusAttrUnsupported);
}

// An answer with a live TID but another attribute is not this request's: dropped and
// counted, and the request still takes its real answer (mad/answer_match.hpp).
TEST_F(SmpClientTest, WrongAttributeInResponseIsDroppedAndTheRealAnswerTaken) {
  submit(1);
  client.poll(milliseconds(0));
  transport.answer(0);
  transport.inbox.back().bytes[17] = 0x20;  // SMInfo instead of NodeInfo
  client.poll(milliseconds(0));
  EXPECT_FALSE(done[0]);
  EXPECT_EQ(client.counters().mismatched, 1u);
  transport.answer(0);
  run_until_idle();
  ASSERT_TRUE(outcomes[0].ok);
  EXPECT_EQ(client.counters().received, 1u);
  EXPECT_EQ(transport.sent.size(), 1u);  // no retry was needed
}

// Forged or stray answers with a live TID (mad/answer_match.hpp), one per field that
// binds an answer to its request: each is dropped, counted and logged with IBSM-1016
// naming the claimed source, and the request then takes its real answer.
TEST(SmpClientForgedAnswers, EachMismatchIsDroppedAndTheRealAnswerTaken) {
  struct Forgery {
    const char* what;
    SmpTarget target;
    std::uint32_t mod;
    std::function<void(IncomingMad&)> spoil;
    const char* logged;  // in the IBSM-1016 line
  };
  DrPath two_hops = *DrPath{}.extended(1)->extended(4);
  const Forgery forgeries[] = {
      {"source LID", Lid{5}, 0, [](IncomingMad& in) { in.slid = 9; }, "from LID 9"},
      {"method", Lid{5}, 0, [](IncomingMad& in) { in.bytes[3] = 0x86; }, "not GetResp"},
      {"attribute", two_hops, 0, [](IncomingMad& in) { in.bytes[17] = 0x20; }, "attribute ID"},
      {"modifier", Lid{5}, 2, [](IncomingMad& in) { in.bytes[23] = 3; }, "modifier differs"},
      {"DR path", two_hops, 0, [](IncomingMad& in) { in.bytes[128 + 2] = 2; },
       "from DR path 0,1,2"},
      {"hop count", two_hops, 0, [](IncomingMad& in) { in.bytes[7] = 1; }, "directed-route"},
      {"hop pointer", two_hops, 0, [](IncomingMad& in) { in.bytes[6] = 2; }, "directed-route"},
      {"D bit", two_hops, 0, [](IncomingMad& in) { in.bytes[4] = 0; }, "directed-route"},
      {"class", Lid{5}, 0, [](IncomingMad& in) { in.bytes[1] = kClassSmiDirected; },
       "management class"},
  };
  for (const Forgery& f : forgeries) {
    SCOPED_TRACE(f.what);
    FakeClock clock;
    ScriptedTransport transport(clock);
    std::ostringstream log;
    SmpClientSettings s;
    s.timeout = milliseconds(200);
    SmpClient client(transport, clock, testsupport::capture_log(log), s);
    std::optional<bool> ok;
    std::uint8_t data0 = 0xff;
    client.submit(SmpRequest::get<NodeInfo>(f.target, f.mod), [&](const SmpOutcome& o) {
      ok = o.ok();
      if (o.ok()) data0 = o.response->data()[0];
    });
    client.poll(milliseconds(0));
    ASSERT_EQ(transport.sent.size(), 1u);
    transport.answer(0);
    transport.inbox.back().bytes[64] = 0xEE;  // what the forger wants the SM to believe
    f.spoil(transport.inbox.back());
    client.poll(milliseconds(0));
    EXPECT_FALSE(ok.has_value()) << "a forged answer completed the request";
    EXPECT_EQ(client.counters().mismatched, 1u);
    EXPECT_EQ(client.counters().received, 0u);
    EXPECT_NE(log.str().find("IBSM-1016"), std::string::npos) << log.str();
    EXPECT_NE(log.str().find(f.logged), std::string::npos) << log.str();
    transport.answer(0);  // the real one
    for (int i = 0; i < 10 && !ok; ++i)
      client.poll(milliseconds(1000));
    ASSERT_TRUE(ok.has_value());
    EXPECT_TRUE(*ok);
    EXPECT_EQ(data0, 0);
    EXPECT_EQ(transport.sent.size(), 1u);
  }
}

TEST(SmpClientForgedAnswers, RefusalLinesAreRateLimited) {
  FakeClock clock;
  ScriptedTransport transport(clock);
  std::ostringstream log;
  SmpClientSettings s;
  s.timeout = std::chrono::seconds(10);  // the request stays live throughout
  SmpClient client(transport, clock, testsupport::capture_log(log), s);
  client.submit(SmpRequest::get<NodeInfo>(Lid{5}), [](const SmpOutcome&) {});
  client.poll(milliseconds(0));
  for (int i = 0; i < 100; ++i) {
    transport.answer(0);
    transport.inbox.back().slid = static_cast<Lid>(100 + i);
  }
  client.poll(milliseconds(0));
  client.poll(milliseconds(0));
  EXPECT_EQ(client.counters().mismatched, 100u);
  const auto lines = [&] {
    std::size_t n = 0;
    for (std::size_t at = log.str().find("IBSM-1016"); at != std::string::npos;
         at = log.str().find("IBSM-1016", at + 1))
      ++n;
    return n;
  };
  EXPECT_EQ(lines(), 5u) << log.str();
  clock.advance(std::chrono::seconds(1));
  transport.answer(0);
  transport.inbox.back().slid = 77;
  client.poll(milliseconds(0));
  EXPECT_EQ(lines(), 6u);
  EXPECT_NE(log.str().find("from LID 77"), std::string::npos);
  EXPECT_NE(log.str().find("(95 more not logged)"), std::string::npos) << log.str();
}

// Devices that drop (or add) SMSupportsExtendedSpeeds in a PortInfo answer's modifier
// still answer: it is a flag of the request, not part of the port number.
TEST_F(SmpClientTest, PortInfoAnswerWithoutTheExtendedSpeedsFlagIsTaken) {
  std::optional<bool> ok;
  client.submit(SmpRequest::get<NodeInfo>(Lid{5}), [](const SmpOutcome&) {});
  SmpRequest r;
  r.attr = AttrId::kPortInfo;
  r.attr_mod = 0x80000002;
  r.target = *DrPath{}.extended(3);
  client.submit(r, [&](const SmpOutcome& o) { ok = o.ok(); });
  client.poll(milliseconds(0));
  ASSERT_EQ(transport.sent.size(), 2u);
  transport.answer(1);
  transport.inbox.back().bytes[20] = 0;  // the device cleared bit 31
  transport.answer(0);
  run_until_idle();
  ASSERT_TRUE(ok.has_value());
  EXPECT_TRUE(*ok);
  EXPECT_EQ(client.counters().mismatched, 0u);
}

TEST_F(SmpClientTest, TruncatedResponseIsNeverASuccess) {
  submit(1);
  client.poll(milliseconds(0));
  transport.answer(0, 0, 40);  // header and part of the data only
  run_until_idle();
  EXPECT_FALSE(outcomes[0].ok) << "a 40-byte MAD was delivered as a complete response";
  EXPECT_GE(client.counters().errors, 1u);
}

TEST_F(SmpClientTest, GarbageMadsAreDroppedNotFatal) {
  submit(1);
  client.poll(milliseconds(0));
  IncomingMad junk;
  junk.length = kMadSize;
  junk.bytes.fill(0xff);
  transport.inbox.push_back(junk);
  IncomingMad bad_smp;  // SMP class, broken header (base version 0xff)
  bad_smp.length = kMadSize;
  bad_smp.bytes.fill(0xff);
  bad_smp.bytes[1] = kClassSmiLid;
  transport.inbox.push_back(bad_smp);
  transport.answer(0);
  run_until_idle();
  EXPECT_TRUE(outcomes[0].ok);
  // Class 0xff has no agent: counted by the dispatcher; the broken SMP is an error.
  EXPECT_EQ(client.dispatcher().unhandled(), 1u);
  EXPECT_EQ(client.counters().errors, 1u);
}

TEST_F(SmpClientTest, SendFailureFailsTheRequest) {
  transport.fail_sends = true;
  submit(1);
  run_until_idle();
  ASSERT_FALSE(outcomes[0].ok);
  EXPECT_EQ(outcomes[0].failure.kind, SmpFailure::Kind::kSendFailed);
  EXPECT_EQ(client.counters().errors, 1u);
}

TEST_F(SmpClientTest, KernelTimeoutReportTriggersRetryAtOnce) {
  const auto t0 = clock.now();
  submit(1);
  client.poll(milliseconds(0));
  IncomingMad report;
  report.bytes = transport.sent[0].bytes;  // the kernel returns our own send
  report.length = kMadSize;
  report.status = ETIMEDOUT;
  transport.inbox.push_back(report);
  client.poll(milliseconds(0));
  client.poll(milliseconds(0));
  EXPECT_EQ(transport.sent.size(), 2u);
  EXPECT_EQ(client.counters().retries, 1u);
  EXPECT_LT(clock.now() - t0, milliseconds(200));
  transport.answer(1);
  run_until_idle();
  EXPECT_TRUE(outcomes[0].ok);
}

TEST_F(SmpClientTest, UnsolicitedRequestsGoToTheHandler) {
  std::vector<std::pair<AttrId, Method>> seen;
  client.set_request_handler([&](const Smp& req, const IncomingMad& raw) {
    seen.emplace_back(req.attr_id(), req.method());
    EXPECT_EQ(raw.slid, 9);
  });
  for (auto [attr, method] :
       {std::pair{AttrId::kSmInfo, Method::kGet}, std::pair{AttrId::kNotice, Method::kTrap}}) {
    IncomingMad in;
    in.bytes = Smp::request(method, attr, 0, Lid{1}, 77).bytes();
    in.length = kMadSize;
    in.slid = 9;
    transport.inbox.push_back(in);
  }
  client.poll(milliseconds(0));
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].first, AttrId::kSmInfo);
  EXPECT_EQ(seen[1].second, Method::kTrap);
  EXPECT_EQ(client.counters().unsolicited, 2u);
  EXPECT_EQ(client.counters().unexpected, 0u);
}

TEST_F(SmpClientTest, RespondBypassesTheWindow) {
  for (std::uint32_t i = 0; i < 4; ++i)
    submit(i);
  client.poll(milliseconds(0));
  ASSERT_EQ(client.outstanding(), 4u);
  const Smp req = Smp::request(Method::kGet, AttrId::kSmInfo, 0, DrPath{}, 5);
  std::array<std::uint8_t, kSmpDataSize> data{};
  client.respond(req.response(ConstPayload(data)), 3);
  ASSERT_EQ(transport.sent.size(), 5u);
  EXPECT_EQ(transport.sent.back().dlid, kPermissiveLid);  // DR answer goes back by DR
  EXPECT_EQ(transport.sent.back().timeout_ms, 0u);
}

TEST_F(SmpClientTest, RequestsCarryTimeoutAndSetPayload) {
  SmInfo info;
  info.priority = 5;
  client.submit(SmpRequest::set(DrPath{}, info), [](const SmpOutcome&) {});
  client.poll(milliseconds(0));
  ASSERT_EQ(transport.sent.size(), 1u);
  EXPECT_EQ(transport.sent[0].timeout_ms, 200u);
  EXPECT_EQ(transport.sent[0].dlid, kPermissiveLid);
  EXPECT_EQ(transport.sent[0].bytes[3], 0x02);        // Set
  EXPECT_EQ(transport.sent[0].bytes[64 + 20], 0x50);  // Priority 5 in the data area
}

}  // namespace
}  // namespace ibsm::mad::smp_client_test
