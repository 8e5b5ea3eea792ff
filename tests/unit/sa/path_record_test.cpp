// PathRecord, MultiPathRecord and TraceRecord as a client sees them: requests built
// byte by byte as IBA 15.2.5.16 lays them out, answers read back from what the SA
// sent. Expected values come from the fabric the SM swept (kSmallNet on the
// FakeFabric: 4x SDR links, CA MTUCap 2048, switch MTUCap 4096) and from OpenSM's
// rules (osm_sa_path_record.c); a snapshot is altered and republished where a test
// needs a property the fake cannot give (a slow link, a broken LFT).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "sa/path_resolver.hpp"
#include "sa/record_layout.hpp"
#include "sa/records/record_util.hpp"
#include "sa/state.hpp"
#include "tests/unit/sa/sa_fixture.hpp"

namespace ibsm::sa {
namespace {

using satest::SaRig;

// ComponentMask bits (IBA 15.2.5.16).
constexpr std::uint64_t kSidMsb = 1ull << 0, kSidLsb = 1ull << 1, kDgid = 1ull << 2,
                        kSgid = 1ull << 3, kDlid = 1ull << 4, kSlid = 1ull << 5, kRaw = 1ull << 6,
                        kTClass = 1ull << 10, kReversible = 1ull << 11, kNumbPath = 1ull << 12,
                        kPKey = 1ull << 13, kQos = 1ull << 14, kSl = 1ull << 15,
                        kMtuSel = 1ull << 16, kMtu = 1ull << 17, kRateSel = 1ull << 18,
                        kRate = 1ull << 19, kLifeSel = 1ull << 20, kLife = 1ull << 21;
constexpr std::uint64_t kLinkLocal = 0xfe80000000000000ull;

// A PathRecord query; each setter selects its component bit(s).
struct Pr {
  std::vector<std::uint8_t> b = std::vector<std::uint8_t>(64, 0);
  std::uint64_t mask = 0;
  Pr& sgid(Guid g, std::uint64_t prefix = kLinkLocal) {
    put_be(b, 24, prefix, 8);
    put_be(b, 32, g, 8);
    mask |= kSgid;
    return *this;
  }
  Pr& dgid(Guid g, std::uint64_t prefix = kLinkLocal) {
    put_be(b, 8, prefix, 8);
    put_be(b, 16, g, 8);
    mask |= kDgid;
    return *this;
  }
  Pr& mgid(const Gid& g) {
    std::copy(g.begin(), g.end(), b.begin() + 8);
    mask |= kDgid;
    return *this;
  }
  Pr& slid(Lid l) {
    put_be(b, 42, l, 2);
    mask |= kSlid;
    return *this;
  }
  Pr& dlid(Lid l) {
    put_be(b, 40, l, 2);
    mask |= kDlid;
    return *this;
  }
  Pr& pkey(std::uint16_t p) {
    put_be(b, 50, p, 2);
    mask |= kPKey;
    return *this;
  }
  Pr& sl(std::uint8_t s) {
    put_be(b, 52, s, 2);
    mask |= kSl;
    return *this;
  }
  Pr& numb(std::uint8_t n, bool reversible = false, bool with_rev_bit = false) {
    b[49] = static_cast<std::uint8_t>((reversible ? 0x80 : 0) | (n & 0x7f));
    mask |= kNumbPath | (with_rev_bit ? kReversible : 0);
    return *this;
  }
  Pr& mtu(std::uint8_t sel, std::uint8_t v) {
    b[54] = static_cast<std::uint8_t>(sel << 6 | v);
    mask |= kMtuSel | kMtu;
    return *this;
  }
  Pr& rate(std::uint8_t sel, std::uint8_t v) {
    b[55] = static_cast<std::uint8_t>(sel << 6 | v);
    mask |= kRateSel | kRate;
    return *this;
  }
  Pr& life(std::uint8_t sel, std::uint8_t v) {
    b[56] = static_cast<std::uint8_t>(sel << 6 | v);
    mask |= kLifeSel | kLife;
    return *this;
  }
  Pr& raw() {
    b[44] = 0x80;
    mask |= kRaw;
    return *this;
  }
};

// A PathRecord read back.
struct Path {
  std::uint64_t service_id, dgid_prefix, dgid_guid, sgid_prefix, sgid_guid;
  Lid dlid, slid;
  std::uint32_t word44;
  std::uint8_t tclass, byte49;
  std::uint16_t pkey, qos_sl;
  std::uint8_t mtu, rate, life, preference;
};
Path decode(std::span<const std::uint8_t> r) {
  Path p;
  p.service_id = get_be(r, 0, 8);
  p.dgid_prefix = get_be(r, 8, 8);
  p.dgid_guid = get_be(r, 16, 8);
  p.sgid_prefix = get_be(r, 24, 8);
  p.sgid_guid = get_be(r, 32, 8);
  p.dlid = static_cast<Lid>(get_be(r, 40, 2));
  p.slid = static_cast<Lid>(get_be(r, 42, 2));
  p.word44 = static_cast<std::uint32_t>(get_be(r, 44, 4));
  p.tclass = r[48];
  p.byte49 = r[49];
  p.pkey = static_cast<std::uint16_t>(get_be(r, 50, 2));
  p.qos_sl = static_cast<std::uint16_t>(get_be(r, 52, 2));
  p.mtu = r[54];
  p.rate = r[55];
  p.life = r[56];
  p.preference = r[57];
  return p;
}
std::vector<Path> paths(const SaRig::Answer& a) {
  std::vector<Path> out;
  for (std::size_t i = 0; i < a.record_count(); ++i)
    out.push_back(decode(a.record(i)));
  return out;
}

// kSmallNet (sa_fixture.cpp) with ibsim's GUIDs: ha port 0x100001, hb 0x100003,
// hc 0x100005, hd 0x100007, hx ports 0x100009/0x10000a, switches 0x200000/0x200001.
constexpr Guid kHa = 0x100001, kHb = 0x100003, kHc = 0x100005, kHd = 0x100007;

conf::Options no_partitions_file() {
  conf::Options o;
  o.partition_config_file = "/nonexistent/ibsm-test/partitions.conf";
  return o;
}

std::unique_ptr<SaRig> rig(std::string_view net = satest::kSmallNet,
                           conf::Options o = no_partitions_file(), std::size_t gsi_max = 1u << 20) {
  return std::make_unique<SaRig>(net, std::move(o), gsi_max);
}

std::unique_ptr<SaRig> rig_with_partitions(const std::string& text, conf::Options o = {}) {
  char name[80];
  std::snprintf(name, sizeof name, "ibsm-path-%d-partitions.conf", static_cast<int>(::getpid()));
  const auto path = std::filesystem::temp_directory_path() / name;
  {
    std::ofstream out(path);
    out << text;
  }
  o.partition_config_file = path.string();
  auto r = std::make_unique<SaRig>(satest::kSmallNet, o);
  std::filesystem::remove(path);
  return r;
}

std::optional<SaRig::Answer> get(SaRig& r, const Pr& q, Lid from) {
  return r.request(method::kGet, attr::kPathRecord, q.b, q.mask, from);
}
std::optional<SaRig::Answer> table(SaRig& r, const Pr& q, Lid from) {
  return r.request(method::kGetTable, attr::kPathRecord, q.b, q.mask, from);
}

// A copy of the published snapshot to alter, then republish with republish().
std::shared_ptr<Snapshot> copy_snapshot(SaRig& r) {
  return std::make_shared<Snapshot>(*r.sa().snapshot());
}
void republish(SaRig& r, std::shared_ptr<Snapshot> s) {
  s->index();
  r.sa().publish(std::move(s));
}
std::uint32_t node_index(const Snapshot& s, std::string_view name) {
  for (const SnapNode& n : s.nodes)
    if (n.description == name) return n.index;
  ADD_FAILURE() << "no node " << name;
  return 0;
}

// ---------------------------------------------------------------------------
// Layouts.

TEST(PathLayouts, PathRecordIs64BytesWithOpenSmBits) {
  const RecordLayout* l = find_layout(attr::kPathRecord);
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->size, 64);
  EXPECT_EQ(l->words(), 8);
  ASSERT_GE(l->fields.size(), 23u);
  EXPECT_EQ(l->fields[2].name, "DGID");
  EXPECT_EQ(l->fields[2].bit_offset, 8 * 8);
  EXPECT_EQ(l->fields[5].name, "SLID");
  EXPECT_EQ(l->fields[5].bit_offset, 42 * 8);
  EXPECT_EQ(l->fields[12].name, "NumbPath");
  EXPECT_EQ(l->fields[13].name, "P_Key");
  EXPECT_EQ(l->fields[13].bit_offset, 50 * 8);
  EXPECT_EQ(l->fields[15].name, "SL");
  EXPECT_EQ(l->fields[21].name, "PacketLifeTime");
  EXPECT_EQ(l->fields[22].name, "Preference");
  EXPECT_EQ(l->fields[22].bit_offset, 57 * 8);
}

TEST(PathLayouts, MultiPathAndTraceRecords) {
  const RecordLayout* m = find_layout(attr::kMultiPathRecord);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->fields[17].name, "IndependenceSelector");
  EXPECT_EQ(m->fields[19].name, "SGIDCount");
  EXPECT_EQ(m->fields[19].bit_offset, 15 * 8);
  EXPECT_EQ(m->fields[21].name, "ServiceID56LSB");
  EXPECT_EQ(m->fields[22].bit_offset, 24 * 8);
  const RecordLayout* t = find_layout(attr::kTraceRecord);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->words(), 6);
  EXPECT_EQ(t->fields[9].name, "ExitPort");
  EXPECT_EQ(t->fields[9].bit_offset, 45 * 8);
}

// ---------------------------------------------------------------------------
// Protocol rules.

TEST(PathRules, RatesAreOrderedByBandwidthNotByEnum) {
  EXPECT_LT(rate_rank(11), rate_rank(6));  // 14 Gb/s FDR 1x below 20 Gb/s
  EXPECT_GT(rate_rank(11), rate_rank(3));  // above 10 Gb/s
  EXPECT_LT(rate_rank(5), rate_rank(3));   // 5 below 10
  EXPECT_EQ(rate_below(3), 5);             // below 10 is 5
  EXPECT_EQ(rate_below(5), 2);
  EXPECT_EQ(rate_below(2), 0);
  EXPECT_EQ(rate_below(24), 23);
  EXPECT_EQ(rate_rank(0), 0);
  EXPECT_EQ(rate_rank(200), 0);
  for (std::uint8_t r = kRateMin; r <= kRateMax; ++r)
    EXPECT_EQ(rate_of_rank(rate_rank(r)), r);
}

TEST(PathRules, PortRateFromWidthAndSpeed) {
  mad::PortInfo pi;
  pi.link_width_active = 2;  // 4x
  pi.link_speed_active = 1;  // 2.5
  EXPECT_EQ(port_rate(pi, false), 3);
  pi.link_speed_active = 4;  // 10 (QDR)
  EXPECT_EQ(port_rate(pi, false), 7);
  pi.link_width_active = 8;  // 12x
  EXPECT_EQ(port_rate(pi, false), 10);
  pi.link_width_active = 2;
  pi.link_speed_ext_active = 2;  // EDR
  EXPECT_EQ(port_rate(pi, true), 16);
  EXPECT_EQ(port_rate(pi, false), 7);  // without extended speeds the classic speed counts
  pi.link_speed_ext_active = 4;        // HDR
  EXPECT_EQ(port_rate(pi, true), 17);
  pi.link_width_active = 16;  // 2x
  pi.link_speed_ext_active = 1;
  EXPECT_EQ(port_rate(pi, true), 19);
  pi.link_speed_ext_active = 0;  // no extended speed active
  pi.link_speed_active = 0;
  EXPECT_EQ(port_rate(pi, true), 2);
}

TEST(PathRules, RateLimitAndFixups) {
  EXPECT_EQ(limit_rate(21, 18), 18);  // 400 capped to 300
  EXPECT_EQ(limit_rate(16, 18), 16);
  EXPECT_EQ(limit_rate(19, 18), 15);  // 28 Gb/s is slower than 300 but its enum is above
                                      // the cap (old clients): the next slower, 25 Gb/s
  EXPECT_EQ(limit_rate(21, 17), 17);  // 400 to 200
  EXPECT_EQ(limit_rate(7, 3), 3);     // 40 capped to 10
  mad::PortInfo pi;
  EXPECT_EQ(rate_2x_hdr_fixup(pi, 19), 6);  // no 2x, no extended speeds: 20 Gb/s
  pi.capability_mask = kCapExtendedSpeeds;
  EXPECT_EQ(rate_2x_hdr_fixup(pi, 19), 15);
  EXPECT_EQ(rate_2x_hdr_fixup(pi, 21), kRate300);
  EXPECT_EQ(rate_2x_hdr_fixup(pi, 24), 22);
  pi.capability_mask |= kCapHasCapMask2;
  pi.capability_mask2 = kCap2SpeedHdr;
  EXPECT_EQ(rate_2x_hdr_fixup(pi, 21), 21);
  EXPECT_EQ(rate_2x_hdr_fixup(pi, 24), 22);
  EXPECT_EQ(rate_2x_hdr_fixup(pi, 20), 20);
  pi.capability_mask2 = 0;
  EXPECT_EQ(rate_2x_hdr_fixup(pi, 24), kRate300);
  EXPECT_EQ(rate_2x_hdr_fixup(pi, 20), 7);
  EXPECT_EQ(rate_2x_hdr_fixup(pi, 16), 16);
}

// XDR (IBA 1.7): 200 Gb/s lanes in LinkSpeedExtActive2, valid where
// CapabilityMask2.IsExtendedSpeeds2Supported; NDR 2x/4x/8x/12x and XDR 1x-8x rates.
TEST(PathRules, NdrAndXdrRates) {
  mad::PortInfo pi;
  pi.link_width_active = 16;           // 2x
  pi.link_speed_ext_active = 8;        // NDR
  EXPECT_EQ(port_rate(pi, true), 17);  // 200 Gb/s
  pi.link_width_active = 2;
  EXPECT_EQ(port_rate(pi, true), 21);  // 400
  pi.link_width_active = 4;
  EXPECT_EQ(port_rate(pi, true), 23);  // 800
  pi.link_width_active = 8;
  EXPECT_EQ(port_rate(pi, true), 24);  // 1200
  pi.link_speed_ext_active = 0;
  pi.link_speed_ext_active2 = 1;  // XDR
  pi.link_speed_active = 4;
  pi.link_width_active = 1;
  EXPECT_EQ(port_rate(pi, true, true), 17);  // 200
  pi.link_width_active = 16;
  EXPECT_EQ(port_rate(pi, true, true), 21);  // 400
  pi.link_width_active = 2;
  EXPECT_EQ(port_rate(pi, true, true), 23);  // 800
  pi.link_width_active = 4;
  EXPECT_EQ(port_rate(pi, true, true), 25);  // 1600
  EXPECT_EQ(port_rate(pi, true, false), 9);  // XDR fields not valid: QDR 8x, 80 Gb/s
  EXPECT_TRUE(rate_valid(25));
  EXPECT_FALSE(rate_valid(26));
  EXPECT_EQ(rate_below(25), 24);  // 1600 above 1200
  EXPECT_EQ(limit_rate(25, 24), 24);
  EXPECT_EQ(limit_rate(25, 18), 18);
  mad::PortInfo caps;
  caps.capability_mask = kCapExtendedSpeeds | kCapHasCapMask2;
  caps.capability_mask2 = kCap2SpeedHdr | kCap2SpeedNdr;
  EXPECT_EQ(rate_2x_hdr_fixup(caps, 25), 24);  // no XDR: NDR's 1200
  EXPECT_EQ(rate_2x_hdr_fixup(caps, 23), 23);
  caps.capability_mask2 = kCap2SpeedXdr | kCap2ExtendedSpeeds2;
  EXPECT_EQ(rate_2x_hdr_fixup(caps, 25), 25);
  EXPECT_EQ(rate_2x_hdr_fixup(caps, 23), 23);  // XDR 4x
  EXPECT_EQ(rate_2x_hdr_fixup(caps, 21), 21);  // XDR 2x
  EXPECT_TRUE(extended_speeds2(caps));
  caps.capability_mask = 0;
  EXPECT_FALSE(extended_speeds2(caps));
}

TEST(PathRules, Selectors) {
  EXPECT_EQ(select_mtu(4, selector::kGreater, 3), 4);
  EXPECT_EQ(select_mtu(4, selector::kGreater, 4), std::nullopt);
  EXPECT_EQ(select_mtu(4, selector::kLess, 4), 3);
  EXPECT_EQ(select_mtu(3, selector::kLess, 5), 3);
  EXPECT_EQ(select_mtu(4, selector::kLess, 1), std::nullopt);
  EXPECT_EQ(select_mtu(4, selector::kExactly, 3), 3);
  EXPECT_EQ(select_mtu(4, selector::kExactly, 5), std::nullopt);
  EXPECT_EQ(select_mtu(4, selector::kBest, 1), 4);
  EXPECT_EQ(select_rate(3, selector::kGreater, 5), 3);
  EXPECT_EQ(select_rate(3, selector::kGreater, 11), std::nullopt);  // 14 Gb/s is faster
  EXPECT_EQ(select_rate(3, selector::kLess, 3), 5);
  EXPECT_EQ(select_rate(3, selector::kLess, 2), std::nullopt);
  EXPECT_EQ(select_rate(3, selector::kExactly, 3), 3);
  EXPECT_EQ(select_rate(7, selector::kExactly, 3), std::nullopt);  // OpenSM: exactly
  EXPECT_EQ(select_life(18, selector::kLess, 18), 17);
  EXPECT_EQ(select_life(18, selector::kExactly, 10), 10);
  EXPECT_EQ(select_life(1, selector::kLess, 1), std::nullopt);
  EXPECT_EQ(select_life(0, selector::kLess, 1), 0);
}

// ---------------------------------------------------------------------------
// PathRecord Get.

TEST(PathRecord, GetByLidsAsOpenSmBuildsIt) {
  auto r = rig();
  const Lid ha = r->lid_of("ha"), hc = r->lid_of("hc");
  auto a = get(*r, Pr{}.slid(ha).dlid(hc), ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.method, method::kGetResp);
  EXPECT_EQ(a->header.status, status::kOk);
  EXPECT_EQ(a->header.attr_offset, 8);
  ASSERT_EQ(a->record_count(), 1u);
  const Path p = decode(a->record(0));
  EXPECT_EQ(p.service_id, 0u);
  EXPECT_EQ(p.dgid_prefix, kLinkLocal);
  EXPECT_EQ(p.dgid_guid, kHc);
  EXPECT_EQ(p.sgid_prefix, kLinkLocal);
  EXPECT_EQ(p.sgid_guid, kHa);
  EXPECT_EQ(p.dlid, hc);
  EXPECT_EQ(p.slid, ha);
  EXPECT_EQ(p.word44, 0u);  // not raw, FlowLabel 0, HopLimit 0
  EXPECT_EQ(p.tclass, 0);
  EXPECT_EQ(p.byte49, 0x80);  // reversible
  EXPECT_EQ(p.pkey, 0xffff);
  EXPECT_EQ(p.qos_sl, 0);
  EXPECT_EQ(p.mtu, 0x84);   // 2048: the CAs' MTUCap
  EXPECT_EQ(p.rate, 0x83);  // 4x SDR
  EXPECT_EQ(p.life, 0x92);  // subnet_timeout 18
  EXPECT_EQ(p.preference, 0);
}

TEST(PathRecord, GetByGidsEchoesTheSgid) {
  conf::Options o = no_partitions_file();
  o.subnet_prefix = 0xfec0000000000001ull;  // not link-local
  auto r = rig(satest::kSmallNet, o);
  const Lid hb = r->lid_of("hb");
  // The subnet prefix in the SGID, link-local in the DGID: both name ports here.
  auto a = get(*r, Pr{}.sgid(kHb, o.subnet_prefix).dgid(kHd), hb);
  ASSERT_TRUE(a);
  ASSERT_EQ(a->record_count(), 1u);
  Path p = decode(a->record(0));
  EXPECT_EQ(p.slid, hb);
  EXPECT_EQ(p.dlid, r->lid_of("hd"));
  EXPECT_EQ(p.sgid_prefix, o.subnet_prefix);  // echoed
  EXPECT_EQ(p.sgid_guid, kHb);
  EXPECT_EQ(p.dgid_prefix, o.subnet_prefix);  // built from the port
  EXPECT_EQ(p.dgid_guid, kHd);
  a = get(*r, Pr{}.sgid(kHb).dgid(kHd, o.subnet_prefix), hb);
  ASSERT_TRUE(a);
  ASSERT_EQ(a->record_count(), 1u);
  p = decode(a->record(0));
  EXPECT_EQ(p.sgid_prefix, kLinkLocal);
  EXPECT_EQ(p.dgid_prefix, o.subnet_prefix);
  // Neither link-local nor this subnet: no port.
  a = get(*r, Pr{}.sgid(kHb, 0xfec0000000000002ull).dgid(kHd), hb);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kNoRecords);
}

TEST(PathRecord, RdmaCmAndIpoibMasksGiveOneReversiblePath) {
  auto r = rig();
  const Lid from = r->lid_of("ha");
  // rdma_cm (cma_query_ib_route): DGID, SGID, P_Key, NumbPath 1, Reversible 1,
  // ServiceID, QoSClass.
  Pr cm = Pr{}.sgid(kHa).dgid(kHd).pkey(0xffff).numb(1, true, true);
  put_be(cm.b, 0, 0x0000000001060000ull | 4791, 8);
  cm.mask |= kSidMsb | kSidLsb | kQos;
  auto a = get(*r, cm, from);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kOk);
  ASSERT_EQ(a->record_count(), 1u);
  Path p = decode(a->record(0));
  EXPECT_EQ(p.byte49, 0x80);
  EXPECT_EQ(p.dlid, r->lid_of("hd"));
  EXPECT_EQ(p.pkey, 0xffff);
  // The TClass variant (IPv6 / AF_IB).
  cm.mask = (cm.mask & ~kQos) | kTClass;
  a = get(*r, cm, from);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->record_count(), 1u);
  // IPoIB path_rec_start: DGID, SGID, NumbPath 1, TClass, P_Key.
  Pr ib = Pr{}.sgid(kHa).dgid(kHc).pkey(0xffff).numb(1);
  ib.mask |= kTClass;
  a = get(*r, ib, from);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kOk);
  ASSERT_EQ(a->record_count(), 1u);
  p = decode(a->record(0));
  EXPECT_EQ(p.dlid, r->lid_of("hc"));
  EXPECT_EQ(p.mtu, 0x84);
}

TEST(PathRecord, StatusesAsOpenSm) {
  auto r = rig();
  const Lid ha = r->lid_of("ha"), hc = r->lid_of("hc");
  // One ServiceID bit without the other.
  Pr q = Pr{}.slid(ha).dlid(hc);
  q.mask |= kSidMsb;
  auto a = get(*r, q, ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kInsufficientComponents);
  EXPECT_EQ(a->bytes.size(), 256u);
  // SGID and SLID naming different ports.
  a = get(*r, Pr{}.sgid(kHb).slid(ha).dlid(hc), ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kReqInvalid);
  a = table(*r, Pr{}.slid(ha).dgid(kHd).dlid(hc), ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kReqInvalid);
  EXPECT_EQ(a->header.method, method::kGetTableResp);
  // Enumerations outside the tables, with their selector.
  a = get(*r, Pr{}.slid(ha).dlid(hc).mtu(selector::kExactly, 6), ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kReqInvalid);
  // 25 (1600 Gb/s, XDR 8x) is a rate since IBA 1.7 (OpenSM's table ends at 24).
  a = get(*r, Pr{}.slid(ha).dlid(hc).rate(selector::kExactly, 26), ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kReqInvalid);
  // A value without its selector bit is not checked (and selects nothing).
  Pr only_value = Pr{}.slid(ha).dlid(hc);
  only_value.b[54] = 0x3f;
  only_value.mask |= kMtu;
  a = get(*r, only_value, ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kOk);
  // Endpoints that name nothing: NO_RECORDS for Get, an empty table for GetTable,
  // never INVALID_GID.
  for (const Pr& bad : {Pr{}.slid(ha).dlid(0x7777), Pr{}.sgid(kHa).dgid(0xdead),
                        Pr{}.sgid(kHa, 0x1234000000000000ull).dgid(kHc),
                        Pr{}.sgid(kHa).dgid(kHc, 0x1234000000000000ull)}) {
    a = get(*r, bad, ha);
    ASSERT_TRUE(a);
    EXPECT_EQ(a->header.status, status::kNoRecords);
    a = table(*r, bad, ha);
    ASSERT_TRUE(a);
    EXPECT_EQ(a->header.status, status::kOk);
    EXPECT_EQ(a->header.attr_offset, 0);
    EXPECT_EQ(a->record_count(), 0u);
  }
  // Set is not a PathRecord method.
  a = r->request(method::kSet, attr::kPathRecord, Pr{}.b, 0, ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kMethodAttrUnsupported);
}

TEST(PathRecord, SelectorsOnMtuRateAndLifetime) {
  auto r = rig();
  const Lid ha = r->lid_of("ha"), hc = r->lid_of("hc");
  auto one = [&](Pr q) -> std::optional<Path> {
    auto a = get(*r, q.slid(ha).dlid(hc), ha);
    if (!a || a->record_count() != 1) return std::nullopt;
    return decode(a->record(0));
  };
  EXPECT_EQ(one(Pr{}.mtu(selector::kGreater, 3))->mtu, 0x84);
  EXPECT_FALSE(one(Pr{}.mtu(selector::kGreater, 4)));
  EXPECT_EQ(one(Pr{}.mtu(selector::kLess, 4))->mtu, 0x83);
  EXPECT_FALSE(one(Pr{}.mtu(selector::kLess, 1)));
  EXPECT_EQ(one(Pr{}.mtu(selector::kExactly, 2))->mtu, 0x82);
  EXPECT_FALSE(one(Pr{}.mtu(selector::kExactly, 5)));
  EXPECT_EQ(one(Pr{}.mtu(selector::kBest, 1))->mtu, 0x84);
  EXPECT_EQ(one(Pr{}.rate(selector::kGreater, 5))->rate, 0x83);
  EXPECT_FALSE(one(Pr{}.rate(selector::kGreater, 3)));
  EXPECT_EQ(one(Pr{}.rate(selector::kLess, 3))->rate, 0x85);  // 5 Gb/s
  EXPECT_EQ(one(Pr{}.rate(selector::kExactly, 3))->rate, 0x83);
  EXPECT_FALSE(one(Pr{}.rate(selector::kExactly, 2)));
  EXPECT_EQ(one(Pr{}.rate(selector::kBest, 2))->rate, 0x83);
  EXPECT_FALSE(one(Pr{}.life(selector::kGreater, 18)));
  EXPECT_EQ(one(Pr{}.life(selector::kLess, 18))->life, 0x91);
  EXPECT_EQ(one(Pr{}.life(selector::kExactly, 10))->life, 0x8a);
  EXPECT_FALSE(one(Pr{}.life(selector::kExactly, 19)));
  EXPECT_EQ(one(Pr{}.life(selector::kBest, 0))->life, 0x92);
}

TEST(PathRecord, LoopbackHasLifetimeZero) {
  auto r = rig();
  const Lid ha = r->lid_of("ha");
  auto a = get(*r, Pr{}.slid(ha).dlid(ha), ha);
  ASSERT_TRUE(a);
  ASSERT_EQ(a->record_count(), 1u);
  const Path p = decode(a->record(0));
  EXPECT_EQ(p.life, 0x80);
  EXPECT_EQ(p.mtu, 0x84);
  EXPECT_EQ(p.byte49, 0x80);
}

TEST(PathRecord, SwitchEndpoints) {
  auto r = rig();
  const Lid ha = r->lid_of("ha"), s2 = r->lid_of("s2"), s1 = r->lid_of("s1");
  auto a = get(*r, Pr{}.slid(ha).dlid(s2), ha);
  ASSERT_TRUE(a);
  ASSERT_EQ(a->record_count(), 1u);
  Path p = decode(a->record(0));
  EXPECT_EQ(p.dlid, s2);
  EXPECT_EQ(p.dgid_guid, r->port_guid_of("s2"));
  EXPECT_EQ(p.mtu, 0x84);
  a = get(*r, Pr{}.slid(s1).dlid(r->lid_of("hd")), ha);
  ASSERT_TRUE(a);
  ASSERT_EQ(a->record_count(), 1u);
  p = decode(a->record(0));
  EXPECT_EQ(p.slid, s1);
  EXPECT_EQ(p.byte49, 0x80);
}

TEST(PathRecord, MtuAndRateAreMinimaAlongThePath) {
  auto r = rig();
  auto s = copy_snapshot(*r);
  const std::uint32_t s1 = node_index(*s, "s1");
  const std::uint32_t s2 = node_index(*s, "s2");
  // The inter-switch link: s1 port 3 egress (ha -> hc) at 512, 1x; s2 port 3 (its
  // ingress) at 1024.
  s->nodes[s1].ports[3].info.mtu_cap = 2;
  s->nodes[s1].ports[3].info.link_width_active = 1;
  s->nodes[s2].ports[3].info.mtu_cap = 3;
  republish(*r, s);
  const Lid ha = r->lid_of("ha");
  auto a = get(*r, Pr{}.slid(ha).dlid(r->lid_of("hc")), ha);
  ASSERT_TRUE(a);
  ASSERT_EQ(a->record_count(), 1u);
  Path p = decode(a->record(0));
  EXPECT_EQ(p.mtu, 0x82);
  EXPECT_EQ(p.rate, 0x82);  // 1x SDR
  // The other way round s2 port 3 is the egress, s1 port 3 the ingress: same minima.
  a = get(*r, Pr{}.slid(r->lid_of("hc")).dlid(ha), ha);
  ASSERT_TRUE(a);
  ASSERT_EQ(a->record_count(), 1u);
  p = decode(a->record(0));
  EXPECT_EQ(p.mtu, 0x82);
  // A path that stays on s1 does not cross the slow link.
  a = get(*r, Pr{}.slid(ha).dlid(r->lid_of("hb")), ha);
  ASSERT_TRUE(a);
  p = decode(a->record(0));
  EXPECT_EQ(p.mtu, 0x84);
  EXPECT_EQ(p.rate, 0x83);
}

TEST(PathRecord, ExtendedSpeedsAndRateCap) {
  auto r = rig();
  auto s = copy_snapshot(*r);
  // Every port EDR 4x with extended speeds (switch ports follow their port 0).
  for (SnapNode& n : s->nodes) {
    for (SnapPort& p : n.ports) {
      p.info.capability_mask |= kCapExtendedSpeeds;
      p.info.link_speed_ext_active = 2;
    }
  }
  republish(*r, s);
  const Lid ha = r->lid_of("ha"), hd = r->lid_of("hd");
  auto a = get(*r, Pr{}.slid(ha).dlid(hd), ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(decode(a->record(0)).rate, 0x80 | 16);  // 100 Gb/s
  // One switch without extended speeds on port 0: its ports count as 4x SDR.
  auto s2 = copy_snapshot(*r);
  s2->nodes[node_index(*s2, "s2")].ports[0].info.capability_mask &= ~kCapExtendedSpeeds;
  republish(*r, s2);
  a = get(*r, Pr{}.slid(ha).dlid(hd), ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(decode(a->record(0)).rate, 0x83);
  // max_rate_enum 7 (40 Gb/s) caps what the record reports.
  republish(*r, s);
  SaSettings st = r->sa().settings();
  st.max_rate_enum = 7;
  r->sa().set_settings(st);
  a = get(*r, Pr{}.slid(ha).dlid(hd), ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(decode(a->record(0)).rate, 0x87);
}

TEST(PathRecord, OriginalExtendedRatesOnlyKeepsOldClientsBelow300G) {
  auto r = rig();
  auto s = copy_snapshot(*r);
  // Every port NDR 4x (400 Gb/s, rate enum 21, an IBA 1.4 value old clients do not know).
  for (SnapNode& n : s->nodes) {
    for (SnapPort& p : n.ports) {
      p.info.capability_mask |= kCapExtendedSpeeds | kCapHasCapMask2;
      p.info.capability_mask2 |= kCap2SpeedNdr;
      p.info.link_speed_ext_active = 8;
    }
  }
  republish(*r, s);
  const Lid ha = r->lid_of("ha"), hd = r->lid_of("hd");
  auto a = get(*r, Pr{}.slid(ha).dlid(hd), ha);
  ASSERT_TRUE(a);
  const std::uint8_t full = decode(a->record(0)).rate & 0x3f;
  EXPECT_GT(rate_rank(full), rate_rank(kRate300));
  SaSettings st = r->sa().settings();
  st.use_original_extended_sa_rates_only = true;  // opensm.conf key
  r->sa().set_settings(st);
  a = get(*r, Pr{}.slid(ha).dlid(hd), ha);
  ASSERT_TRUE(a);
  const std::uint8_t capped = decode(a->record(0)).rate & 0x3f;
  EXPECT_LE(capped, kRate300);
  EXPECT_LE(rate_rank(capped), rate_rank(kRate300));
}

TEST(PathRules, TavorMtuLimitAsOpenSmAppliesIt) {
  mad::NodeInfo tavor, other;
  tavor.device_id = 23108;
  tavor.vendor_id = 0x0002c9;  // Mellanox
  other.device_id = 4099;      // ConnectX-3
  other.vendor_id = 0x0002c9;
  EXPECT_TRUE(is_tavor(tavor));
  EXPECT_FALSE(is_tavor(other));
  mad::NodeInfo voltaire_tavor = tavor;
  voltaire_tavor.vendor_id = 0x0008f1;
  EXPECT_TRUE(is_tavor(voltaire_tavor));
  mad::NodeInfo unknown_vendor = tavor;
  unknown_vendor.vendor_id = 0x001234;
  EXPECT_FALSE(is_tavor(unknown_vendor));
  const PathQuery::Selected none;
  EXPECT_FALSE(tavor_mtu_limit_applies(other, other, none));
  EXPECT_TRUE(tavor_mtu_limit_applies(other, tavor, none));  // either end
  auto sel = [](std::uint8_t s, std::uint8_t v) { return PathQuery::Selected{true, s, v}; };
  EXPECT_TRUE(tavor_mtu_limit_applies(tavor, other, sel(selector::kGreater, 2)));
  EXPECT_FALSE(tavor_mtu_limit_applies(tavor, other, sel(selector::kGreater, 4)));
  EXPECT_TRUE(tavor_mtu_limit_applies(tavor, other, sel(selector::kExactly, 3)));
  EXPECT_FALSE(tavor_mtu_limit_applies(tavor, other, sel(selector::kExactly, 4)));
  EXPECT_TRUE(tavor_mtu_limit_applies(tavor, other, sel(selector::kLess, 5)));
  EXPECT_FALSE(tavor_mtu_limit_applies(tavor, other, sel(selector::kBest, 0)));
}

TEST(PathRecord, EnableQuirksLimitsPathsOfTavorHcasTo1K) {
  auto r = rig();
  auto s = copy_snapshot(*r);
  SnapNode& ha = s->nodes[node_index(*s, "ha")];
  ha.info.device_id = 23108;
  ha.info.vendor_id = 0x0002c9;
  republish(*r, s);
  const Lid a = r->lid_of("ha"), c = r->lid_of("hc"), d = r->lid_of("hd");
  auto mtu = [&](Lid from, Lid to, Pr q) -> int {
    auto ans = get(*r, q.slid(from).dlid(to), a);
    return ans && ans->record_count() == 1 ? decode(ans->record(0)).mtu : -1;
  };
  EXPECT_EQ(mtu(a, c, Pr{}), 0x84);  // off by default (OpenSM's default too)
  SaSettings st = r->sa().settings();
  st.enable_quirks = true;  // opensm.conf key
  r->sa().set_settings(st);
  EXPECT_EQ(mtu(a, c, Pr{}), 0x83);  // 1024 bytes, both directions
  EXPECT_EQ(mtu(c, a, Pr{}), 0x83);
  EXPECT_EQ(mtu(c, d, Pr{}), 0x84);                             // no Tavor at either end
  EXPECT_EQ(mtu(a, c, Pr{}.mtu(selector::kBest, 1)), 0x84);     // the largest, on purpose
  EXPECT_EQ(mtu(a, c, Pr{}.mtu(selector::kExactly, 4)), 0x84);  // 2048 asked for
  EXPECT_EQ(mtu(a, c, Pr{}.mtu(selector::kGreater, 2)), 0x83);
}

TEST(PathRecord, DeadEndsLoopsAndOneWayPaths) {
  auto r = rig();
  const Lid ha = r->lid_of("ha"), hc = r->lid_of("hc");
  auto base = copy_snapshot(*r);
  const std::uint32_t s1 = node_index(*base, "s1");
  const std::uint32_t s2 = node_index(*base, "s2");
  // s2 cannot route back to ha: ha -> hc exists but is not reversible.
  auto one_way = std::make_shared<Snapshot>(*base);
  one_way->nodes[s2].lft[ha] = 0xff;
  republish(*r, one_way);
  auto a = get(*r, Pr{}.slid(ha).dlid(hc), ha);
  ASSERT_TRUE(a);
  ASSERT_EQ(a->record_count(), 1u);
  EXPECT_EQ(decode(a->record(0)).byte49, 0x00);
  a = get(*r, Pr{}.slid(ha).dlid(hc).numb(1, true, true), ha);  // Reversible required
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kNoRecords);
  a = get(*r, Pr{}.slid(ha).dlid(hc).numb(1, false, true), ha);  // Reversible 0: don't care
  ASSERT_TRUE(a);
  EXPECT_EQ(a->record_count(), 1u);
  a = get(*r, Pr{}.slid(hc).dlid(ha), ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kNoRecords);
  // A loop between the switches: no path (the walk stops after 64 hops).
  auto loop = std::make_shared<Snapshot>(*base);
  loop->nodes[s2].lft[ha] = 3;
  loop->nodes[s1].lft[ha] = 3;
  republish(*r, loop);
  a = get(*r, Pr{}.slid(hc).dlid(ha), ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kNoRecords);
  // An LFT pointing at another end port.
  auto wrong = std::make_shared<Snapshot>(*base);
  wrong->nodes[s2].lft[hc] = 2;  // hd
  republish(*r, wrong);
  a = get(*r, Pr{}.slid(ha).dlid(hc), ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kNoRecords);
}

TEST(PathRecord, GetReturnsOnePathGetTableAll) {
  auto r = rig();
  const Lid ha = r->lid_of("ha");
  // Source fixed, destinations open: one for Get, every LID-holding port for GetTable
  // (6 CA ports and 2 switches, itself included).
  auto a = get(*r, Pr{}.sgid(kHa), ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kOk);
  EXPECT_EQ(a->record_count(), 1u);
  a = table(*r, Pr{}.sgid(kHa), ha);
  ASSERT_TRUE(a);
  auto ps = paths(*a);
  EXPECT_EQ(ps.size(), 8u);
  std::set<Lid> dlids;
  for (const Path& p : ps) {
    EXPECT_EQ(p.slid, ha);
    EXPECT_EQ(p.sgid_guid, kHa);
    dlids.insert(p.dlid);
  }
  EXPECT_EQ(dlids.size(), 8u);
  // Destination fixed, sources open.
  a = table(*r, Pr{}.dlid(r->lid_of("hd")), ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->record_count(), 8u);
  // The world: every pair.
  a = table(*r, Pr{}, ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->record_count(), 64u);
  a = get(*r, Pr{}, ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->record_count(), 1u);
  // NumbPath caps the paths per pair, not the table.
  a = table(*r, Pr{}.sgid(kHa).numb(1), ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->record_count(), 8u);
  a = table(*r, Pr{}.sgid(kHa).numb(0), ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->record_count(), 0u);
}

TEST(PathRecord, SingleMadTransportTrimsTheWorld) {
  auto r = rig(satest::kSmallNet, no_partitions_file(), 256);
  auto a = table(*r, Pr{}, r->lid_of("ha"));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->record_count(), 3u);  // 200 bytes hold three 64-byte records
  EXPECT_EQ(a->bytes.size(), 56u + 3 * 64);
  EXPECT_EQ(r->sa().counters().trimmed, 1u);
}

TEST(PathRecord, LmcGivesPreferredPairsFirst) {
  conf::Options o = no_partitions_file();
  o.lmc = 1;
  auto r = rig(satest::kSmallNet, o);
  const Lid ha = r->lid_of("ha"), hc = r->lid_of("hc");
  auto a = table(*r, Pr{}.sgid(kHa).dgid(kHc), ha);
  ASSERT_TRUE(a);
  auto ps = paths(*a);
  ASSERT_EQ(ps.size(), 4u);
  EXPECT_EQ(ps[0].slid, ha);
  EXPECT_EQ(ps[0].dlid, hc);
  EXPECT_EQ(ps[0].preference, 0);
  EXPECT_EQ(ps[1].slid, ha + 1);
  EXPECT_EQ(ps[1].dlid, hc + 1);
  EXPECT_EQ(ps[1].preference, 0);
  EXPECT_EQ(ps[2].slid, ha);
  EXPECT_EQ(ps[2].dlid, hc + 1);
  EXPECT_EQ(ps[2].preference, 2);
  EXPECT_EQ(ps[3].slid, ha + 1);
  EXPECT_EQ(ps[3].dlid, hc);
  EXPECT_EQ(ps[3].preference, 2);
  // NumbPath 2: the two preferred ones.
  a = table(*r, Pr{}.sgid(kHa).dgid(kHc).numb(2), ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->record_count(), 2u);
  // A fixed DLID (the second LID of hc): both source LIDs, the matching offset first.
  a = table(*r, Pr{}.sgid(kHa).dlid(hc + 1), ha);
  ASSERT_TRUE(a);
  ps = paths(*a);
  ASSERT_EQ(ps.size(), 2u);
  EXPECT_EQ(ps[0].slid, ha);
  EXPECT_EQ(ps[0].preference, 0);
  EXPECT_EQ(ps[1].slid, ha + 1);
  EXPECT_EQ(ps[1].preference, 2);
  // A Get is one path; an LMC LID finds its port.
  a = get(*r, Pr{}.slid(ha + 1).dlid(hc + 1), ha);
  ASSERT_TRUE(a);
  ASSERT_EQ(a->record_count(), 1u);
  EXPECT_EQ(decode(a->record(0)).slid, ha + 1);
}

TEST(PathRecord, PKeyChoiceAndPartitionSl) {
  conf::Options o;
  o.qos = true;  // OpenSM honours sl= only with QoS on
  auto r = rig_with_partitions(
      "Default=0x7fff : ALL=full;\n"
      "P1=0x8001, sl=3 : 0x100001=full, 0x100005=full, 0x100003=limited;\n"
      "P2=0x0002, sl=5 : 0x100001=full, 0x100005=limited;\n",
      o);
  const Lid ha = r->lid_of("ha"), hb = r->lid_of("hb"), hc = r->lid_of("hc");
  auto one = [&](Pr q, Lid from) -> std::optional<Path> {
    auto a = get(*r, q, from);
    if (!a || a->record_count() != 1) return std::nullopt;
    return decode(a->record(0));
  };
  // No P_Key asked: OpenSM's first shared one (0x0001 sorts before 0x7fff).
  auto p = one(Pr{}.slid(ha).dlid(hc), ha);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->pkey, 0x8001);
  EXPECT_EQ(p->qos_sl, 3);
  // A requested P_Key must be shared; the record carries it with its SL.
  p = one(Pr{}.slid(ha).dlid(hc).pkey(0xffff), ha);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->pkey, 0xffff);
  EXPECT_EQ(p->qos_sl, 0);
  p = one(Pr{}.slid(ha).dlid(hc).pkey(0x8002), ha);  // ha full, hc limited
  ASSERT_TRUE(p);
  EXPECT_EQ(p->qos_sl, 5);
  EXPECT_FALSE(one(Pr{}.slid(hb).dlid(hc).pkey(0x8002), ha));  // hb is not in P2
  EXPECT_FALSE(one(Pr{}.slid(ha).dlid(hc).pkey(0x8003), ha));
  // A requested SL wins over the partition's.
  p = one(Pr{}.slid(ha).dlid(hc).sl(7), ha);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->qos_sl, 7);
  // Raw traffic: no P_Key in the record.
  p = one(Pr{}.slid(ha).dlid(hc).raw(), ha);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->pkey, 0);
}

TEST(PathRecord, PartitionsHidePaths) {
  auto r = rig_with_partitions(
      "Default=0x7fff : ALL=limited, SELF=full;\n"
      "P1=0x0001 : 0x100001=full, 0x100005=full;\n"
      "P2=0x0002 : 0x100003=full, 0x100007=full;\n");
  const Lid ha = r->lid_of("ha"), hb = r->lid_of("hb"), hc = r->lid_of("hc"), hd = r->lid_of("hd");
  // The SM runs on ha (the first CA), a full default member: it sees everyone.
  auto a = get(*r, Pr{}.slid(hb).dlid(hd), ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->record_count(), 1u);
  EXPECT_EQ(decode(a->record(0)).pkey, 0x8002);
  // hb and hc share no partition: no path, whoever asks.
  a = get(*r, Pr{}.slid(hb).dlid(hc), ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kNoRecords);
  // The requester must share a partition with both ends: hb with hc does not.
  a = get(*r, Pr{}.slid(ha).dlid(hc), hb);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kNoRecords);
  a = get(*r, Pr{}.slid(hb).dlid(hd), hb);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->record_count(), 1u);
  // hc's view of the world holds no path touching hb or hd.
  a = table(*r, Pr{}, hc);
  ASSERT_TRUE(a);
  ASSERT_GT(a->record_count(), 0u);
  for (const Path& p : paths(*a)) {
    EXPECT_NE(p.slid, hb);
    EXPECT_NE(p.dlid, hb);
    EXPECT_NE(p.slid, hd);
    EXPECT_NE(p.dlid, hd);
  }
}

TEST(PathRecord, RoutingEngineSlTable) {
  auto r = rig();
  const Lid ha = r->lid_of("ha"), hc = r->lid_of("hc");
  auto s = copy_snapshot(*r);
  // Two source rows over every destination LID: ha -> hc on SL 6, hc -> ha on SL 4.
  const std::size_t cols = std::size_t{std::max(ha, hc)} + 1;
  s->path_sl.row_of_lid.assign(cols, PathSlTable::kNoRow);
  s->path_sl.row_of_lid[ha] = 0;
  s->path_sl.row_of_lid[hc] = 1;
  s->path_sl.columns = cols;
  auto sls = std::make_shared<std::vector<std::uint8_t>>(2 * cols, 0);
  (*sls)[hc] = 6;
  (*sls)[cols + ha] = 4;
  s->path_sl.sl = sls;
  republish(*r, s);
  auto a = get(*r, Pr{}.slid(ha).dlid(hc), ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(decode(a->record(0)).qos_sl, 6);
  a = get(*r, Pr{}.slid(hc).dlid(ha), ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(decode(a->record(0)).qos_sl, 4);
  a = get(*r, Pr{}.slid(ha).dlid(hc).sl(6), ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->record_count(), 1u);
  a = get(*r, Pr{}.slid(ha).dlid(hc).sl(2), ha);  // not the engine's SL
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kNoRecords);
  a = get(*r, Pr{}.slid(ha).dlid(r->lid_of("hb")), ha);  // no entry: the usual SL
  ASSERT_TRUE(a);
  EXPECT_EQ(decode(a->record(0)).qos_sl, 0);
}

TEST(PathRecord, EngineSlWithARequesterChosenQosBit) {
  // torus-2QoS: the engine fixes SL bits 0-2 (datelines crossed), bit 3 is the QoS
  // level the requester asks for.
  auto r = rig();
  const Lid ha = r->lid_of("ha"), hc = r->lid_of("hc");
  auto s = copy_snapshot(*r);
  const std::size_t cols = std::size_t{std::max(ha, hc)} + 1;
  s->path_sl.row_of_lid.assign(cols, PathSlTable::kNoRow);
  s->path_sl.row_of_lid[ha] = 0;
  s->path_sl.columns = cols;
  auto sls = std::make_shared<std::vector<std::uint8_t>>(cols, 0);
  (*sls)[hc] = 3;
  s->path_sl.sl = sls;
  s->path_sl.requester_bits = 0x8;
  republish(*r, s);
  auto a = get(*r, Pr{}.slid(ha).dlid(hc), ha);  // the partition's SL 0: QoS level 0
  ASSERT_TRUE(a);
  EXPECT_EQ(decode(a->record(0)).qos_sl, 3);
  a = get(*r, Pr{}.slid(ha).dlid(hc).sl(11), ha);  // QoS level 1 with the engine's bits
  ASSERT_TRUE(a);
  ASSERT_EQ(a->record_count(), 1u);
  EXPECT_EQ(decode(a->record(0)).qos_sl, 11);
  a = get(*r, Pr{}.slid(ha).dlid(hc).sl(9), ha);  // other dateline bits: not this path
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kNoRecords);
}

TEST(PathRecord, QosExcludesSlsMappedToVl15) {
  conf::Options o = no_partitions_file();
  o.qos = true;
  auto r = rig(satest::kSmallNet, o);
  const Lid ha = r->lid_of("ha"), hc = r->lid_of("hc");
  auto s = copy_snapshot(*r);
  // s1's port 3 (egress of ha -> hc) drops SL 0 arriving from port 1 (ha).
  auto vl = std::make_shared<PortVlTables>();
  vl->sl2vl.assign(9, 0);
  vl->sl2vl[1] = 0xf000000000000000ull;  // SL0 -> VL15, the rest VL0
  s->nodes[node_index(*s, "s1")].ports[3].vl_tables = vl;
  republish(*r, s);
  auto a = get(*r, Pr{}.slid(ha).dlid(hc), ha);  // the default partition's SL is 0
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kNoRecords);
  a = get(*r, Pr{}.slid(ha).dlid(hc).sl(1), ha);
  ASSERT_TRUE(a);
  ASSERT_EQ(a->record_count(), 1u);
  EXPECT_EQ(decode(a->record(0)).qos_sl, 1);
  // Raw traffic still takes the SL of the P_Key both ends share.
  a = get(*r, Pr{}.slid(ha).dlid(hc).raw(), ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kNoRecords);
  // Without any P_Key (tables not read), raw traffic gets the first usable SL.
  auto bare = copy_snapshot(*r);
  bare->nodes[node_index(*bare, "ha")].ports[1].pkeys.clear();
  bare->nodes[node_index(*bare, "hc")].ports[1].pkeys.clear();
  republish(*r, bare);
  a = get(*r, Pr{}.slid(ha).dlid(hc).raw(), ha);
  ASSERT_TRUE(a);
  ASSERT_EQ(a->record_count(), 1u);
  EXPECT_EQ(decode(a->record(0)).qos_sl, 1);
  EXPECT_EQ(decode(a->record(0)).pkey, 0);
  a = get(*r, Pr{}.slid(ha).dlid(hc), ha);  // not raw: no shared P_Key, no path
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kNoRecords);
}

TEST(PathRecord, MulticastDestinationFromTheGroup) {
  auto r = rig();
  // Multicast paths come from the group store (joins show at once).
  const auto& groups = r->sa().state().mcast.groups();
  ASSERT_FALSE(groups.empty());
  McGroupRec& g = *r->sa().state().mcast.find(groups.begin()->first);
  g.members.push_back({make_gid(kLinkLocal, kHa), kHa, 1, false});
  g.flow_label = 0x12345;
  const McGroupRec& pub = g;
  const Lid ha = r->lid_of("ha");
  auto a = get(*r, Pr{}.mgid(pub.mgid).sgid(kHa), ha);
  ASSERT_TRUE(a);
  ASSERT_EQ(a->record_count(), 1u);
  const Path p = decode(a->record(0));
  EXPECT_EQ(p.dlid, pub.mlid);
  EXPECT_EQ(p.sgid_guid, kHa);  // echoed
  EXPECT_EQ(p.pkey, pub.pkey);
  EXPECT_EQ(p.byte49, 1);
  EXPECT_EQ(p.mtu, 0x80 | pub.mtu);
  EXPECT_EQ(p.rate, 0x80 | pub.rate);
  EXPECT_EQ(p.life, 0x80 | pub.packet_life);
  EXPECT_EQ(p.word44 >> 8, 0x12345u);
  EXPECT_EQ(p.word44 & 0xff, (pub.mgid[1] & 0x0f) == 2 ? pub.hop_limit : 0xffu);
  // Not a member, a different P_Key, an unknown group: nothing.
  a = get(*r, Pr{}.mgid(pub.mgid).sgid(kHb), ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kNoRecords);
  a = get(*r, Pr{}.mgid(pub.mgid).pkey(0x1234), ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kNoRecords);
  Gid other = pub.mgid;
  other[15] ^= 0x5a;
  a = get(*r, Pr{}.mgid(other), ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kNoRecords);
}

TEST(PathRecord, ShortAndHostileRequestsAreSafe) {
  auto r = rig();
  const Lid ha = r->lid_of("ha");
  // Every mask bit with a record cut after the header: answered, nothing read beyond.
  sa::SaHeader h;
  h.method = method::kGetTable;
  h.attr_id = attr::kPathRecord;
  h.comp_mask = ~0ull;
  std::vector<std::uint8_t> bytes(kHeaderSize + 10, 0xff);
  encode_header(h, bytes);
  auto a = r->raw(bytes, ha);
  ASSERT_TRUE(a);
  // All-ones fields: MTU 63 with a selector is invalid.
  EXPECT_EQ(a->header.status, status::kReqInvalid);
  h.comp_mask = kSlid | kDlid | kNumbPath | kReversible;
  encode_header(h, bytes);
  a = r->raw(bytes, ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->record_count(), 0u);
}

// ---------------------------------------------------------------------------
// TraceRecord.

struct Trace {
  std::uint64_t prefix;
  std::uint16_t generation;
  std::uint8_t type;
  std::uint64_t node, chassis, entry_id, exit_id;
  std::uint8_t entry, exit;
};
std::vector<Trace> traces(const SaRig::Answer& a) {
  std::vector<Trace> out;
  for (std::size_t i = 0; i < a.record_count(); ++i) {
    auto r = a.record(i);
    out.push_back({get_be(r, 0, 8), static_cast<std::uint16_t>(get_be(r, 8, 2)), r[11],
                   get_be(r, 12, 8), get_be(r, 20, 8), get_be(r, 28, 8), get_be(r, 36, 8), r[44],
                   r[45]});
  }
  return out;
}

TEST(TraceRecord, OneRecordPerNodeOnThePath) {
  auto r = rig();
  const Lid ha = r->lid_of("ha"), hc = r->lid_of("hc");
  const Pr q = Pr{}.slid(ha).dlid(hc);
  auto a = r->request(method::kGetTraceTable, attr::kTraceRecord, q.b, q.mask, ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.method, method::kGetTraceTableResp);
  EXPECT_EQ(a->header.status, status::kOk);
  EXPECT_EQ(a->header.attr_offset, 6);
  auto t = traces(*a);
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].node, kHa - 1);
  EXPECT_EQ(t[0].type, 1);
  EXPECT_EQ(t[0].entry, 0);
  EXPECT_EQ(t[0].entry_id, 0u);
  EXPECT_EQ(t[0].exit, 1);
  EXPECT_EQ(t[0].exit_id, kHa);
  EXPECT_EQ(t[1].node, 0x200000u);  // s1
  EXPECT_EQ(t[1].type, 2);
  EXPECT_EQ(t[1].entry, 1);
  EXPECT_EQ(t[1].exit, 3);
  EXPECT_EQ(t[2].node, 0x200001u);  // s2
  EXPECT_EQ(t[2].entry, 3);
  EXPECT_EQ(t[2].exit, 1);
  EXPECT_EQ(t[3].node, kHc - 1);
  EXPECT_EQ(t[3].entry, 1);
  EXPECT_EQ(t[3].exit, 0);
  EXPECT_EQ(t[3].entry_id, kHc);
  for (const Trace& x : t) {
    EXPECT_EQ(x.prefix, kLinkLocal);
    EXPECT_EQ(x.generation, r->sa().snapshot()->generation & 0xffff);
  }
  // To a switch: it is entered and the path ends there.
  const Pr to_switch = Pr{}.slid(ha).dlid(r->lid_of("s2"));
  a = r->request(method::kGetTraceTable, attr::kTraceRecord, to_switch.b, to_switch.mask, ha);
  ASSERT_TRUE(a);
  t = traces(*a);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[2].node, 0x200001u);
  EXPECT_EQ(t[2].entry, 3);
  EXPECT_EQ(t[2].exit, 0);
  // No path: an empty table. Other methods are not served.
  const Pr none = Pr{}.slid(ha).dlid(0x7777);
  a = r->request(method::kGetTraceTable, attr::kTraceRecord, none.b, none.mask, ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kOk);
  EXPECT_EQ(a->record_count(), 0u);
  a = r->request(method::kGetTable, attr::kTraceRecord, q.b, q.mask, ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kMethodAttrUnsupported);
}

// ---------------------------------------------------------------------------
// MultiPathRecord.

std::optional<SaRig::Answer> multipath(SaRig& r, const std::vector<Guid>& src,
                                       const std::vector<Guid>& dst, std::uint64_t extra_mask,
                                       std::uint8_t numb, Lid from, bool rmpp = true) {
  SaHeader h;
  h.method = method::kGetMulti;
  h.tid = 0x4242;
  h.attr_id = attr::kMultiPathRecord;
  h.comp_mask = (1ull << 19) | (1ull << 20) | extra_mask;
  if (rmpp) {
    h.rmpp_version = 1;
    h.rmpp_type = rmpp::kTypeData;
    h.rmpp_flags = rmpp::kFlagActive | rmpp::kFlagFirst | rmpp::kFlagLast;
    h.rmpp_segment = 1;
  }
  std::vector<std::uint8_t> bytes(kMadSize, 0);
  encode_header(h, bytes);
  std::span<std::uint8_t> rec(bytes.data() + kHeaderSize, kDataSize);
  rec[5] = numb;
  rec[15] = static_cast<std::uint8_t>(src.size());
  rec[16] = static_cast<std::uint8_t>(dst.size());
  std::size_t at = 24;
  for (const auto* list : {&src, &dst}) {
    for (Guid g : *list) {
      put_be(rec, at, kLinkLocal, 8);
      put_be(rec, at + 8, g, 8);
      at += 16;
    }
  }
  return r.raw(bytes, from);
}

TEST(MultiPathRecord, EverySourceToEveryDestinationAsPathRecords) {
  auto r = rig();
  const Lid ha = r->lid_of("ha");
  auto a = multipath(*r, {kHa}, {kHc, kHd}, 0, 0, ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.method, method::kGetMultiResp);
  EXPECT_EQ(a->header.attr_id, attr::kPathRecord);
  EXPECT_EQ(a->header.status, status::kOk);
  auto ps = paths(*a);
  ASSERT_EQ(ps.size(), 2u);
  EXPECT_EQ(ps[0].dlid, r->lid_of("hc"));
  EXPECT_EQ(ps[1].dlid, r->lid_of("hd"));
  EXPECT_EQ(ps[0].sgid_guid, kHa);
  EXPECT_EQ(ps[0].byte49, 0x80);
  // NumbPath caps the total.
  a = multipath(*r, {kHa, kHb}, {kHc, kHd}, 1ull << 6, 3, ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->record_count(), 3u);
}

TEST(MultiPathRecord, ApmPicksOneDiagonal) {
  auto r = rig();
  const Lid ha = r->lid_of("ha");
  auto a = multipath(*r, {kHb, kHa}, {kHd, kHc}, 1ull << 6, 2, ha);
  ASSERT_TRUE(a);
  auto ps = paths(*a);
  ASSERT_EQ(ps.size(), 2u);
  // Two paths, distinct sources and distinct destinations.
  EXPECT_NE(ps[0].slid, ps[1].slid);
  EXPECT_NE(ps[0].dlid, ps[1].dlid);
}

TEST(MultiPathRecord, Statuses) {
  auto r = rig();
  const Lid ha = r->lid_of("ha");
  auto a = multipath(*r, {kHa}, {kHc}, 0, 0, ha, /*rmpp=*/false);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kReqInvalid);
  a = multipath(*r, {kHa}, {0xdead}, 0, 0, ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kReqInvalidGid);
  a = multipath(*r, {kHa}, {}, 0, 0, ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kReqInvalid);
  a = multipath(*r, {kHa}, {kHc}, 1ull << 16, 0, ha);  // one ServiceID bit
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kInsufficientComponents);
  // Without SGIDCount.
  SaHeader h;
  h.method = method::kGetMulti;
  h.attr_id = attr::kMultiPathRecord;
  h.comp_mask = 1ull << 20;
  h.rmpp_flags = rmpp::kFlagActive;
  std::vector<std::uint8_t> bytes(kMadSize, 0);
  encode_header(h, bytes);
  a = r->raw(bytes, ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kInsufficientComponents);
  EXPECT_EQ(a->header.attr_id, attr::kMultiPathRecord);
}

// ---------------------------------------------------------------------------
// Alias GUIDs (GUIDInfo indexes 1 and up, IBA 14.2.5.5, assigned with a
// GUIDInfoRecord Set, IBA 15.2.5.18) name their ports in SGID and DGID as port
// GUIDs do; OpenSM looks both up in one table (osm_get_alias_guid_by_guid).
namespace alias {

constexpr Guid kHbAlias = 0x0002c90300b0b001, kHdAlias = 0x0002c90300d0d001;

// The rig with room for aliases on hb and hd (GUIDCap 8, what the fake's ports
// lack), and one alias assigned to each at index 1 through the SA.
std::unique_ptr<SaRig> rig_with_aliases() {
  auto r = rig();
  auto s = copy_snapshot(*r);
  for (const char* name : {"hb", "hd"})
    s->nodes[node_index(*s, name)].ports[1].info.guid_cap = 8;
  republish(*r, s);
  for (const auto& [name, guid] : {std::pair{"hb", kHbAlias}, std::pair{"hd", kHdAlias}}) {
    const Lid lid = r->lid_of(name);
    std::vector<std::uint8_t> rec(72, 0);  // GUIDInfoRecord: LID, BlockNum 0, GUID1
    put_be(rec, 0, lid, 2);
    put_be(rec, 16, guid, 8);
    const std::uint64_t mask = (1u << 0) | (1u << 1) | (1u << 5);
    auto a = r->request(method::kSet, attr::kGuidInfoRecord, rec, mask, lid);
    EXPECT_TRUE(a && a->header.status == status::kOk) << "GUIDInfoRecord Set for " << name;
  }
  EXPECT_EQ(r->sa().state().aliases.port_of(kHbAlias), kHb);
  return r;
}

TEST(PathRecord, AnAliasSgidNamesItsPortAndIsEchoed) {
  auto r = rig_with_aliases();
  const Lid hb = r->lid_of("hb"), hd = r->lid_of("hd");
  auto a = get(*r, Pr{}.sgid(kHbAlias).dgid(kHd), hb);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kOk);
  ASSERT_EQ(a->record_count(), 1u);
  const Path p = decode(a->record(0));
  EXPECT_EQ(p.slid, hb);
  EXPECT_EQ(p.dlid, hd);
  EXPECT_EQ(p.sgid_prefix, kLinkLocal);
  EXPECT_EQ(p.sgid_guid, kHbAlias);  // the requested SGID, as it came
  EXPECT_EQ(p.dgid_guid, kHd);
  EXPECT_EQ(p.byte49, 0x80);
  // The same path as by the port GUID, but for the SGID.
  auto base = get(*r, Pr{}.sgid(kHb).dgid(kHd), hb);
  ASSERT_TRUE(base);
  ASSERT_EQ(base->record_count(), 1u);
  auto want = base->record(0);
  auto got = a->record(0);
  EXPECT_TRUE(std::equal(got.begin() + 40, got.end(), want.begin() + 40));
  // A half query from the alias: every destination, each with the alias as SGID.
  auto half = table(*r, Pr{}.sgid(kHbAlias), hb);
  auto half_base = table(*r, Pr{}.sgid(kHb), hb);
  ASSERT_TRUE(half && half_base);
  EXPECT_EQ(half->record_count(), half_base->record_count());
  EXPECT_GT(half->record_count(), 1u);
  for (const Path& q : paths(*half))
    EXPECT_EQ(q.sgid_guid, kHbAlias);
  // The alias and the LID of another port name two ports: the client's error.
  a = get(*r, Pr{}.sgid(kHbAlias).slid(r->lid_of("hc")).dgid(kHd), hb);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kReqInvalid);
}

TEST(PathRecord, AnAliasDgidNamesItsPortAndTheRecordCarriesIt) {
  auto r = rig_with_aliases();
  const Lid ha = r->lid_of("ha"), hd = r->lid_of("hd");
  auto a = get(*r, Pr{}.sgid(kHa).dgid(kHdAlias), ha);
  ASSERT_TRUE(a);
  ASSERT_EQ(a->record_count(), 1u);
  Path p = decode(a->record(0));
  EXPECT_EQ(p.slid, ha);
  EXPECT_EQ(p.dlid, hd);
  EXPECT_EQ(p.dgid_prefix, kLinkLocal);  // the subnet prefix, as for a port GUID
  EXPECT_EQ(p.dgid_guid, kHdAlias);      // OpenSM: the destination's alias_guid
  EXPECT_EQ(p.sgid_guid, kHa);
  // Alias at both ends, and with the DLID that agrees with it.
  a = get(*r, Pr{}.sgid(kHbAlias).dgid(kHdAlias).dlid(hd), r->lid_of("hb"));
  ASSERT_TRUE(a);
  ASSERT_EQ(a->record_count(), 1u);
  p = decode(a->record(0));
  EXPECT_EQ(p.sgid_guid, kHbAlias);
  EXPECT_EQ(p.dgid_guid, kHdAlias);
  EXPECT_EQ(p.dlid, hd);
  // Every source towards the alias.
  auto half = table(*r, Pr{}.dgid(kHdAlias), ha);
  ASSERT_TRUE(half);
  EXPECT_GT(half->record_count(), 1u);
  for (const Path& q : paths(*half)) {
    EXPECT_EQ(q.dgid_guid, kHdAlias);
    EXPECT_EQ(q.dlid, hd);
  }
  // A DLID alone names the port, whose GUID the record then carries.
  a = get(*r, Pr{}.slid(ha).dlid(hd), ha);
  ASSERT_TRUE(a);
  ASSERT_EQ(a->record_count(), 1u);
  EXPECT_EQ(decode(a->record(0)).dgid_guid, kHd);
}

TEST(PathRecord, AnUnknownOrDeletedAliasNamesNoPort) {
  auto r = rig_with_aliases();
  const Lid hb = r->lid_of("hb");
  constexpr Guid kNobody = 0x0002c90300eeee01;
  auto a = get(*r, Pr{}.sgid(kNobody).dgid(kHd), hb);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kNoRecords);
  a = get(*r, Pr{}.sgid(kHb).dgid(kNobody), hb);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kNoRecords);
  a = table(*r, Pr{}.dgid(kNobody), hb);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kOk);
  EXPECT_EQ(a->record_count(), 0u);
  a = table(*r, Pr{}.sgid(kNobody), hb);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kOk);
  EXPECT_EQ(a->record_count(), 0u);
  // Deleted, the alias names nothing any more.
  std::vector<std::uint8_t> rec(72, 0);
  put_be(rec, 0, hb, 2);
  auto del = r->request(method::kDelete, attr::kGuidInfoRecord, rec,
                        (1u << 0) | (1u << 1) | (1u << 5), hb);
  ASSERT_TRUE(del);
  EXPECT_EQ(del->header.status, status::kOk);
  a = get(*r, Pr{}.sgid(kHbAlias).dgid(kHd), hb);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kNoRecords);
  // A port that left the fabric takes its aliases with it.
  auto s = copy_snapshot(*r);
  s->generation += 1;
  s->nodes[node_index(*s, "hd")].ports[1].present = false;
  republish(*r, s);
  a = get(*r, Pr{}.sgid(kHb).dgid(kHdAlias), hb);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kNoRecords);
  EXPECT_EQ(r->sa().state().aliases.port_of(kHdAlias), 0u);
}

TEST(MultiPathRecord, AliasGidsNameTheirPortsAndAreEchoed) {
  auto r = rig_with_aliases();
  const Lid ha = r->lid_of("ha");
  auto a = multipath(*r, {kHbAlias}, {kHc, kHdAlias}, 0, 0, ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kOk);
  auto ps = paths(*a);
  ASSERT_EQ(ps.size(), 2u);
  EXPECT_EQ(ps[0].slid, r->lid_of("hb"));
  EXPECT_EQ(ps[0].sgid_guid, kHbAlias);
  EXPECT_EQ(ps[0].dgid_guid, kHc);
  EXPECT_EQ(ps[1].dlid, r->lid_of("hd"));
  EXPECT_EQ(ps[1].sgid_guid, kHbAlias);
  EXPECT_EQ(ps[1].dgid_guid, kHdAlias);
  EXPECT_EQ(ps[1].sgid_prefix, kLinkLocal);
  EXPECT_EQ(ps[1].dgid_prefix, kLinkLocal);
  // APM: each path keeps the GUIDs its ends were listed by, whatever the sort.
  a = multipath(*r, {kHbAlias, kHa}, {kHdAlias, kHc}, 1ull << 6, 2, ha);
  ASSERT_TRUE(a);
  ps = paths(*a);
  ASSERT_EQ(ps.size(), 2u);
  for (const Path& p : ps) {
    EXPECT_EQ(p.sgid_guid, p.slid == r->lid_of("hb") ? kHbAlias : kHa);
    EXPECT_EQ(p.dgid_guid, p.dlid == r->lid_of("hd") ? kHdAlias : kHc);
  }
  // An alias nobody has is an invalid GID here, as any unknown GUID.
  a = multipath(*r, {kHa}, {0x0002c90300eeee01}, 0, 0, ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kReqInvalidGid);
}

}  // namespace alias

// ---------------------------------------------------------------------------
// Prefix routes (prefix_routes_file, sa/prefix_routes.hpp): PathRecords to GIDs of
// other subnets go to a router port.

namespace prefix {

// One switch, two hosts, two routers (port 1 on the switch).
constexpr std::string_view kRouterNet = R"(Switch 8 "s1"
[1] "ha"[1]
[2] "hb"[1]
[3] "r1"[1]
[4] "r2"[1]

Hca 1 "ha"
[1] "s1"[1]

Hca 1 "hb"
[1] "s1"[2]

Rt 2 "r1"
[1] "s1"[3]

Rt 2 "r2"
[1] "s1"[4]
)";

std::unique_ptr<SaRig> router_rig(const std::string& routes) {
  conf::Options o = no_partitions_file();
  char name[80];
  std::snprintf(name, sizeof name, "ibsm-prefix-%d.conf", static_cast<int>(::getpid()));
  const auto path = std::filesystem::temp_directory_path() / name;
  {
    std::ofstream out(path);
    out << routes;
  }
  o.prefix_routes_file = path.string();
  auto r = std::make_unique<SaRig>(kRouterNet, o);
  std::filesystem::remove(path);
  return r;
}

constexpr std::uint64_t kOther = 0xfec0000000000001ull, kThird = 0xfec0000000000002ull;

}  // namespace prefix

TEST(PrefixRoutes, OffSubnetDgidGoesToTheNamedRouterAndKeepsTheDgid) {
  using namespace prefix;
  char text[160];
  auto probe = router_rig("");
  const Guid r1 = probe->port_guid_of("r1"), r2 = probe->port_guid_of("r2");
  std::snprintf(text, sizeof text, "# site routes\n0x%016llx %llx  # via r2\n* *\n",
                static_cast<unsigned long long>(kOther), static_cast<unsigned long long>(r2));
  auto r = router_rig(text);
  const Lid ha = r->lid_of("ha");
  auto a = get(*r, Pr{}.sgid(kHa).dgid(0x1234, kOther), ha);
  ASSERT_TRUE(a);
  ASSERT_EQ(a->record_count(), 1u);
  Path p = decode(a->record(0));
  EXPECT_EQ(p.dlid, r->lid_of("r2"));
  EXPECT_EQ(p.dgid_prefix, kOther);  // the requested DGID, not the router's
  EXPECT_EQ(p.dgid_guid, 0x1234u);
  // Another prefix: "* *", the first router by port GUID.
  a = get(*r, Pr{}.sgid(kHa).dgid(0x99, kThird), ha);
  ASSERT_TRUE(a);
  ASSERT_EQ(a->record_count(), 1u);
  p = decode(a->record(0));
  EXPECT_EQ(p.dlid, r->lid_of(r1 < r2 ? "r1" : "r2"));
  EXPECT_EQ(p.dgid_prefix, kThird);
}

TEST(PrefixRoutes, NoFileOrNoMatchingRouteAnswersNothing) {
  using namespace prefix;
  conf::Options o = no_partitions_file();
  o.prefix_routes_file = "/nonexistent/ibsm-test/prefix-routes.conf";  // no file: no routes
  auto none = rig(kRouterNet, o);
  const Lid ha = none->lid_of("ha");
  auto a = get(*none, Pr{}.sgid(kHa).dgid(0x1234, kOther), ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->record_count(), 0u);
  auto only_other = router_rig("0xfec0000000000002 *\n");
  a = get(*only_other, Pr{}.sgid(kHa).dgid(0x1234, kOther), only_other->lid_of("ha"));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->record_count(), 0u);
}

TEST(PrefixRoutes, UnknownRouterIsLoggedWithFileLineAndSkipped) {
  using namespace prefix;
  auto probe = router_rig("");
  const Guid r1 = probe->port_guid_of("r1");
  char text[160];
  std::snprintf(text, sizeof text, "fec0000000000001 0x0002c90300abcdef\nfec0000000000001 %llx\n",
                static_cast<unsigned long long>(r1));
  auto r = router_rig(text);
  auto a = get(*r, Pr{}.sgid(kHa).dgid(0x1234, kOther), r->lid_of("ha"));
  ASSERT_TRUE(a);
  ASSERT_EQ(a->record_count(), 1u);
  EXPECT_EQ(decode(a->record(0)).dlid, r->lid_of("r1"));
  const auto lines =
      routes_without_router(*r->sa().snapshot()->prefix_routes, r->sa().snapshot()->router_ports);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("ibsm-prefix-"), std::string::npos);
  EXPECT_NE(lines[0].find(":1: 0x0002c90300abcdef is not the port GUID of a router"),
            std::string::npos);
}

TEST(PrefixRoutes, FileErrorsNameLineAndColumn) {
  auto err = [](std::string_view text) {
    auto r = parse_prefix_routes(text, "prefix-routes.conf");
    return r.ok() ? std::string("accepted")
                  : format_error_id(r.error().id) + " " + r.error().message;
  };
  EXPECT_EQ(err("\n  fec0::1 0x1\n"),
            "IBSM-7040 prefix-routes.conf:2:3: bad subnet prefix 'fec0::1': 64-bit hexadecimal "
            "(0x optional) or *");
  EXPECT_EQ(err("fec0000000000001\n"),
            "IBSM-7040 prefix-routes.conf:1:17: missing router port GUID after the prefix "
            "(\"<prefix> <GUID or *>\")");
  EXPECT_EQ(err("* 0x12345678901234567\n"),
            "IBSM-7040 prefix-routes.conf:1:3: bad router port GUID '0x12345678901234567': "
            "non-zero 64-bit hexadecimal (0x optional) or *");
  EXPECT_EQ(err("* 0\n"),
            "IBSM-7040 prefix-routes.conf:1:3: bad router port GUID '0': non-zero "
            "64-bit hexadecimal (0x optional) or *");
  EXPECT_EQ(err("* * extra\n"),
            "IBSM-7040 prefix-routes.conf:1:5: unexpected 'extra' after the router port GUID");
  auto ok = parse_prefix_routes("# c\n\n*\t*   # all\n0xFEC0000000000001 0X2C9000100D050\n", "f");
  ASSERT_TRUE(ok.ok());
  ASSERT_EQ(ok->routes.size(), 2u);
  EXPECT_TRUE(ok->routes[0].any_prefix && ok->routes[0].any_router);
  EXPECT_EQ(ok->routes[1].prefix, 0xfec0000000000001ull);
  EXPECT_EQ(ok->routes[1].router, 0x2c9000100d050ull);
  EXPECT_EQ(ok->routes[1].line, 4u);
}

TEST(PrefixRoutes, RouteForTakesTheFirstAvailableRouter) {
  auto r = parse_prefix_routes("1 0xa\n1 0xb\n* *\n", "f");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(route_for(*r, 1, {0xb, 0xc}), 0xbu);  // 0xa is not here
  EXPECT_EQ(route_for(*r, 1, {0xa, 0xb}), 0xau);
  EXPECT_EQ(route_for(*r, 2, {0xb, 0xc}), 0xbu);  // * *: the smallest port GUID
  EXPECT_EQ(route_for(*r, 2, {}), 0u);
}

}  // namespace
}  // namespace ibsm::sa
