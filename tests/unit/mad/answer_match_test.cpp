// mad/answer_match.hpp: an answer is bound to its request by TID, class, GetResp,
// attribute, modifier (less the request's flag bits) and source (SLID, or the DR
// fields). One case per field, each from a real response that matches.
#include <gtest/gtest.h>

#include "mad/answer_match.hpp"
#include "mad/smp.hpp"

namespace ibsm::mad::answer_match_test {
namespace {

using std::chrono::milliseconds;

DrPath path(std::initializer_list<PortNum> ports) {
  DrPath p;
  for (PortNum port : ports)
    p = *p.extended(port);
  return p;
}

// What SmpClient records for a request (mad/smp_client.cpp send_one).
SentMad sent_of(const Smp& req, Lid dlid, const SmpTarget& target) {
  SentMad s;
  s.mgmt_class = req.directed() ? kClassSmiDirected : kClassSmiLid;
  s.method = static_cast<std::uint8_t>(req.method());
  s.tid_low = req.tid_low();
  s.attr_id = static_cast<std::uint16_t>(req.attr_id());
  s.attr_mod = req.attr_mod();
  s.attr_mod_flags = smp_modifier_flags(s.attr_id);
  s.dlid = dlid;
  if (const auto* p = std::get_if<DrPath>(&target)) {
    s.hop_count = static_cast<std::uint8_t>(p->hops());
    s.initial_path = p->initial_path();
  }
  return s;
}

struct Case {
  SmpTarget target;
  Smp request;
  SentMad sent;
  Smp::Bytes answer;
  Lid slid;
};

Case make(const SmpTarget& target, AttrId attr = AttrId::kNodeInfo, std::uint32_t mod = 0,
          Method method = Method::kGet) {
  const Lid dlid = std::holds_alternative<Lid>(target) ? std::get<Lid>(target) : kPermissiveLid;
  Smp req = Smp::request(method, attr, mod, target, 0x1234, 0);
  std::array<std::uint8_t, kSmpDataSize> data{};
  Case c{target, req, sent_of(req, dlid, target), req.response(ConstPayload(data)).bytes(), dlid};
  c.answer[8] = 0x77;  // the kernel's and umad2sim's TID bits never matter
  return c;
}

Mismatch check(const Case& c) {
  return match_answer(c.sent, ReceivedMad{c.answer, c.slid});
}

TEST(AnswerMatch, RealAnswersMatch) {
  EXPECT_EQ(check(make(Lid{7})), Mismatch::kNone);
  EXPECT_EQ(check(make(DrPath{})), Mismatch::kNone);
  EXPECT_EQ(check(make(path({1, 3, 5}))), Mismatch::kNone);
  EXPECT_EQ(check(make(path({2}), AttrId::kPortInfo, 4, Method::kSet)), Mismatch::kNone);
}

TEST(AnswerMatch, TidLow32BitsMustMatch) {
  Case c = make(Lid{7});
  c.answer[15] ^= 1;
  EXPECT_EQ(check(c), Mismatch::kTid);
}

TEST(AnswerMatch, ClassMustMatch) {
  Case c = make(Lid{7});
  c.answer[1] = kClassSmiDirected;  // a DR SMP answering a LID-routed one
  EXPECT_EQ(check(c), Mismatch::kClass);
  Case p = make(Lid{7});
  p.answer[1] = kClassPerfMgt;
  EXPECT_EQ(check(p), Mismatch::kClass);
}

TEST(AnswerMatch, MethodMustBeGetResp) {
  for (std::uint8_t m : {0x01, 0x02, 0x05, 0x07, 0x86}) {
    Case c = make(Lid{7});
    c.answer[3] = m;
    EXPECT_EQ(check(c), Mismatch::kMethod) << int{m};
  }
}

TEST(AnswerMatch, AttributeMustMatch) {
  Case c = make(path({1}));
  c.answer[17] = 0x20;  // SMInfo for NodeInfo
  EXPECT_EQ(check(c), Mismatch::kAttribute);
}

TEST(AnswerMatch, ModifierMustMatch) {
  Case c = make(Lid{7}, AttrId::kLinearForwardingTable, 3);
  c.answer[23] = 4;  // block 4 for block 3
  EXPECT_EQ(check(c), Mismatch::kModifier);
  // Bit 31 is a flag only in PortInfo: elsewhere it is part of the modifier.
  Case n = make(Lid{7}, AttrId::kNodeInfo, 0);
  n.answer[20] = 0x80;
  EXPECT_EQ(check(n), Mismatch::kModifier);
}

// SMSupportsExtendedSpeeds (PortInfo modifier bit 31, IBA 14.2.5.6) is a flag to the
// device: an answer that drops it, or sets it, still answers the same port.
TEST(AnswerMatch, PortInfoExtendedSpeedsFlagNeedNotBeEchoed) {
  Case c = make(path({1}), AttrId::kPortInfo, 0x80000003);
  EXPECT_EQ(check(c), Mismatch::kNone);
  c.answer[20] = 0x00;  // the device cleared the flag
  EXPECT_EQ(check(c), Mismatch::kNone);
  c.answer[23] = 0x04;  // but another port is another answer
  EXPECT_EQ(check(c), Mismatch::kModifier);
  Case plain = make(Lid{9}, AttrId::kPortInfo, 2);
  plain.answer[20] = 0x80;
  EXPECT_EQ(check(plain), Mismatch::kNone);
}

TEST(AnswerMatch, LidRoutedAnswerMustComeFromTheRequestsDestination) {
  Case c = make(Lid{7});
  c.slid = 8;
  EXPECT_EQ(check(c), Mismatch::kSource);
  c.slid = 0;
  EXPECT_EQ(check(c), Mismatch::kSource);
}

TEST(AnswerMatch, DirectedRouteFieldsMustBeTheRequests) {
  const DrPath p = path({1, 3, 5});
  {
    Case c = make(p);
    c.slid = 42;  // a DR answer's SLID means nothing: the path does
    EXPECT_EQ(check(c), Mismatch::kNone);
  }
  {
    Case c = make(p);
    c.answer[4] &= 0x7f;  // D bit clear: not returning
    EXPECT_EQ(check(c), Mismatch::kPath);
  }
  {
    Case c = make(p);
    c.answer[7] = 2;  // HopCount
    EXPECT_EQ(check(c), Mismatch::kPath);
  }
  {
    Case c = make(p);
    c.answer[6] = 3;  // HopPointer not back at 0
    EXPECT_EQ(check(c), Mismatch::kPath);
  }
  {
    Case c = make(p);
    c.answer[128 + 2] = 4;  // InitialPath[2]
    EXPECT_EQ(check(c), Mismatch::kPath);
  }
  {
    Case c = make(p);
    c.answer[32] = 0x00;  // DrSLID not permissive
    c.answer[33] = 0x05;
    EXPECT_EQ(check(c), Mismatch::kPath);
  }
  {
    Case c = make(p);
    c.answer[35] = 0x01;  // DrDLID not permissive
    EXPECT_EQ(check(c), Mismatch::kPath);
  }
  {
    Case c = make(p);
    c.answer[128 + 9] = 7;  // beyond the hop count: not part of the path
    c.answer[192 + 1] = 9;  // the return path is the fabric's to fill
    EXPECT_EQ(check(c), Mismatch::kNone);
  }
}

TEST(AnswerMatch, HopPointerOneIsFineOnlyForTheSmsOwnNode) {
  Case local = make(DrPath{});
  local.answer[6] = 1;
  EXPECT_EQ(check(local), Mismatch::kNone);
  Case far = make(path({1}));
  far.answer[6] = 1;
  EXPECT_EQ(check(far), Mismatch::kPath);
}

TEST(AnswerMatch, ShortAnswersDoNotMatch) {
  Case c = make(path({1}));
  EXPECT_EQ(match_answer(c.sent, ReceivedMad{std::span(c.answer).first(20), c.slid}),
            Mismatch::kTooShort);
  // A DR answer needs its path: 100 bytes hold the header but not InitialPath.
  EXPECT_EQ(match_answer(c.sent, ReceivedMad{std::span(c.answer).first(100), c.slid}),
            Mismatch::kTooShort);
}

TEST(AnswerMatch, TidLowOf) {
  Case c = make(Lid{7});
  EXPECT_EQ(tid_low_of(c.answer), 0x1234u);
  EXPECT_EQ(tid_low_of(std::span(c.answer).first(15)), 0u);
}

}  // namespace
}  // namespace ibsm::mad::answer_match_test
