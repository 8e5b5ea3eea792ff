// PathRecord answers under a QoS policy file (qos_policy_file with qos on), as OpenSM's
// pr_rcv_get_path_parms applies the matched QoS level: its MTU and rate limits before
// the request's selectors, its SL over the partition's (a requested SL must be the
// level's), its packet lifetime, its P_Keys; and a policy that does not parse on reload
// changes nothing. The SM is swept on the FakeFabric (kSmallNet: 4x SDR, CA MTU 2048).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sa/records/record_util.hpp"
#include "sa/sa_mad.hpp"
#include "tests/unit/sa/sa_fixture.hpp"

namespace ibsm::sa {
namespace {

using satest::SaRig;

constexpr std::uint64_t kSid = 3, kDgid = 1ull << 2, kSgid = 1ull << 3, kPKey = 1ull << 13,
                        kQosClass = 1ull << 14, kSl = 1ull << 15;
constexpr std::uint64_t kLinkLocal = 0xfe80000000000000ull;
constexpr Guid kHa = 0x100001, kHb = 0x100003, kHc = 0x100005, kHd = 0x100007;

constexpr const char* kPolicy = R"(port-groups
  port-group
    name: left
    port-guid: 0x100001, 0x100003
  end-port-group
  port-group
    name: switches
    node-type: SWITCH
  end-port-group
  port-group
    name: p5
    partition: P5
  end-port-group
end-port-groups
qos-levels
  qos-level
    name: DEFAULT
    sl: 1
  end-qos-level
  qos-level
    name: slow
    sl: 2
    mtu-limit: 2
    rate-limit: 2
    packet-life: 10
  end-qos-level
  qos-level
    name: sw
    sl: 3
  end-qos-level
  qos-level
    name: pk
    sl: 4
    pkey: 0x0005
  end-qos-level
  qos-level
    name: sid
    sl: 5
  end-qos-level
end-qos-levels
qos-match-rules
  qos-match-rule
    source: left
    destination: p5
    qos-level-name: slow
  end-qos-match-rule
  qos-match-rule
    destination: switches
    qos-level-name: sw
  end-qos-match-rule
  qos-match-rule
    service-id: 0x10
    qos-level-name: sid
  end-qos-match-rule
  qos-match-rule
    qos-class: 3
    qos-level-name: pk
  end-qos-match-rule
end-qos-match-rules
)";

struct Files {
  std::filesystem::path dir;
  Files() {
    dir =
        std::filesystem::temp_directory_path() / ("ibsm-qos-policy-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "partitions.conf")
        << "Default=0x7fff, ipoib: ALL=full;\nP5=0x0005: 0x100005=full, 0x100007=full;\n";
    write(kPolicy);
  }
  ~Files() { std::filesystem::remove_all(dir); }
  void write(const std::string& text) const { std::ofstream(dir / "qos-policy.conf") << text; }
  conf::Options options(bool qos = true) const {
    conf::Options o;
    o.qos = qos;
    o.partition_config_file = (dir / "partitions.conf").string();
    o.qos_policy_file = (dir / "qos-policy.conf").string();
    return o;
  }
};

struct Q {
  std::vector<std::uint8_t> b = std::vector<std::uint8_t>(64, 0);
  std::uint64_t mask = kSgid | kDgid;
  Q(Guid s, Guid d) {
    put_be(b, 24, kLinkLocal, 8);
    put_be(b, 32, s, 8);
    put_be(b, 8, kLinkLocal, 8);
    put_be(b, 16, d, 8);
  }
  Q& sid(std::uint64_t v) {
    put_be(b, 0, v, 8);
    mask |= kSid;
    return *this;
  }
  Q& pkey(std::uint16_t v) {
    put_be(b, 50, v, 2);
    mask |= kPKey;
    return *this;
  }
  Q& qos_class(std::uint16_t v) {
    put_be(b, 52, (get_be(b, 52, 2) & 0xf) | (v << 4), 2);
    mask |= kQosClass;
    return *this;
  }
  Q& sl(std::uint8_t v) {
    put_be(b, 52, (get_be(b, 52, 2) & ~0xfull) | v, 2);
    mask |= kSl;
    return *this;
  }
};

// SL, MTU, rate, P_Key and lifetime of the one answer, or the status when none.
struct Got {
  int sl = -1, mtu = -1, rate = -1, pkey = -1, life = -1;
  std::uint16_t status = 0;
  bool operator==(const Got&) const = default;
};

Got ask(SaRig& r, const Q& q) {
  auto a = r.request(method::kGet, attr::kPathRecord, q.b, q.mask, r.lid_of("ha"));
  Got g;
  if (!a) return g;
  g.status = a->header.status;
  if (a->record_count() != 1) return g;
  const auto rec = a->record(0);
  g.sl = static_cast<int>(get_be(rec, 52, 2) & 0xf);
  g.mtu = rec[54] & 0x3f;
  g.rate = rec[55] & 0x3f;
  g.pkey = static_cast<int>(get_be(rec, 50, 2));
  g.life = rec[56] & 0x3f;
  return g;
}

TEST(PathQosPolicy, LevelsDecideSlMtuRateLifetimeAndPKey) {
  Files f;
  SaRig r(satest::kSmallNet, f.options());
  // left -> p5: the "slow" level's limits and lifetime.
  EXPECT_EQ(ask(r, Q(kHa, kHc)), (Got{2, 2, 2, 0xffff, 10, 0}));
  // The other way matches no rule: DEFAULT's SL, the path's MTU (2048) and rate (4x SDR).
  EXPECT_EQ(ask(r, Q(kHc, kHa)), (Got{1, 4, 3, 0xffff, 18, 0}));
  // To a switch (node-type SWITCH).
  EXPECT_EQ(ask(r, Q(kHa, 0x200000)).sl, 3);
  // The first rule that matches wins, even when a later one names the ServiceID.
  EXPECT_EQ(ask(r, Q(kHb, kHd).sid(0x10)).sl, 2);
  EXPECT_EQ(ask(r, Q(kHd, kHb).sid(0x10)).sl, 5);
  EXPECT_EQ(ask(r, Q(kHd, kHb).sid(0x11)).sl, 1);
  // A level with P_Keys: the shared one of them, reported without the membership bit.
  EXPECT_EQ(ask(r, Q(kHd, kHc).qos_class(3)), (Got{4, 4, 3, 0x0005, 18, 0}));
  EXPECT_EQ(ask(r, Q(kHd, kHc).qos_class(3).pkey(0x8005)).pkey, 0x8005);
  // ... and only those: another requested P_Key gets no path; so do ports that share none.
  EXPECT_EQ(ask(r, Q(kHd, kHc).qos_class(3).pkey(0xffff)).status, status::kNoRecords);
  EXPECT_EQ(ask(r, Q(kHd, kHa).qos_class(3)).status, status::kNoRecords);
  // A requested SL must be the level's.
  EXPECT_EQ(ask(r, Q(kHc, kHa).sl(1)).sl, 1);
  EXPECT_EQ(ask(r, Q(kHc, kHa).sl(2)).status, status::kNoRecords);
}

TEST(PathQosPolicy, IgnoredWithQosOff) {
  Files f;
  SaRig r(satest::kSmallNet, f.options(false));
  EXPECT_EQ(ask(r, Q(kHa, kHc)), (Got{0, 4, 3, 0xffff, 18, 0}));
}

TEST(PathQosPolicy, ReloadIsAllOrNothing) {
  Files f;
  SaRig r(satest::kSmallNet, f.options());
  const Got slow = ask(r, Q(kHa, kHc));
  ASSERT_EQ(slow.sl, 2);
  // A broken file changes nothing.
  std::string broken = kPolicy;
  broken.replace(broken.find("sl: 2"), 5, "sl: two");
  f.write(broken);
  EXPECT_FALSE(r.sm->reload_qos_policy());
  std::atomic<bool> stop{false};
  r.sm->request_heavy_sweep(sm::HeavyReason::kForced);
  static_cast<void>(r.sm->sweep(stop));
  EXPECT_EQ(ask(r, Q(kHa, kHc)), slow);
  // A good one replaces the policy as a whole.
  std::string other = kPolicy;
  other.replace(other.find("sl: 2"), 5, "sl: 7");
  f.write(other);
  EXPECT_TRUE(r.sm->reload_qos_policy());
  r.sm->request_heavy_sweep(sm::HeavyReason::kForced);
  static_cast<void>(r.sm->sweep(stop));
  EXPECT_EQ(ask(r, Q(kHa, kHc)).sl, 7);
}

// MultiPathRecord GetMulti from `src` to `dst` (one RMPP segment, as a kernel sends it),
// with ServiceID and QoS class when given: the SL and P_Key of each answer.
std::vector<std::pair<int, int>> multipath(SaRig& r, Guid src, const std::vector<Guid>& dst,
                                           std::optional<std::uint64_t> sid,
                                           std::optional<std::uint16_t> qos_class) {
  SaHeader h;
  h.method = method::kGetMulti;
  h.tid = 0x4243;
  h.attr_id = attr::kMultiPathRecord;
  h.comp_mask = (1ull << 19) | (1ull << 20);
  h.rmpp_version = 1;
  h.rmpp_type = rmpp::kTypeData;
  h.rmpp_flags = rmpp::kFlagActive | rmpp::kFlagFirst | rmpp::kFlagLast;
  h.rmpp_segment = 1;
  std::vector<std::uint8_t> bytes(kMadSize, 0);
  std::span<std::uint8_t> rec(bytes.data() + kHeaderSize, kDataSize);
  if (sid) {
    h.comp_mask |= (1ull << 16) | (1ull << 21);
    rec[13] = static_cast<std::uint8_t>(*sid >> 56);
    put_be(rec, 17, *sid & 0x00ffffffffffffffull, 7);
  }
  if (qos_class) {
    h.comp_mask |= 1ull << 8;
    put_be(rec, 8, std::uint64_t{*qos_class} << 4, 2);
  }
  encode_header(h, bytes);
  rec[15] = 1;
  rec[16] = static_cast<std::uint8_t>(dst.size());
  put_be(rec, 24, kLinkLocal, 8);
  put_be(rec, 32, src, 8);
  std::size_t at = 40;
  for (Guid g : dst) {
    put_be(rec, at, kLinkLocal, 8);
    put_be(rec, at + 8, g, 8);
    at += 16;
  }
  std::vector<std::pair<int, int>> out;
  auto a = r.raw(bytes, r.lid_of("ha"));
  if (!a) return out;
  for (std::size_t i = 0; i < a->record_count(); ++i) {
    const auto p = a->record(i);
    out.emplace_back(static_cast<int>(get_be(p, 52, 2) & 0xf), static_cast<int>(get_be(p, 50, 2)));
  }
  return out;
}

TEST(PathQosPolicy, MultiPathRecordMatchesLikePathRecord) {
  Files f;
  SaRig r(satest::kSmallNet, f.options());
  using V = std::vector<std::pair<int, int>>;
  // (hd and hc share P5 too, which OpenSM's P_Key order puts first.)
  EXPECT_EQ(multipath(r, kHd, {kHb, kHc}, std::nullopt, std::nullopt),
            (V{{1, 0xffff}, {1, 0x8005}}));
  EXPECT_EQ(multipath(r, kHd, {kHb, kHc}, 0x10, std::nullopt), (V{{5, 0xffff}, {5, 0x8005}}));
  // The P_Key level: hb shares no P_Key of it with hd, so only hc answers.
  EXPECT_EQ(multipath(r, kHd, {kHb, kHc}, std::nullopt, 3), (V{{4, 0x0005}}));
}

}  // namespace
}  // namespace ibsm::sa
