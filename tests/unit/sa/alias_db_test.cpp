// Alias GUIDs through the SA database file (opensm-sa.dump, OpenSM's format): the
// alias tables a GUIDInfoRecord Set made (IBA 15.2.5.18) are written as GUIDInfo
// lines, and an SM started on that file puts them back once its first sweep has
// found the ports (OpenSM's load_guidinfo, osm_sa.c), answers GUIDInfoRecord with
// them and writes them into the ports' GUIDInfo tables (IBA 14.2.5.5).
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "sa/sa_db.hpp"
#include "sa/sa_mad.hpp"
#include "sa/state.hpp"
#include "sm/subnet_manager.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/net_file.hpp"

namespace ibsm::sa {
namespace {

// ha (the SM), hb and the two ports of hx on one switch.
constexpr std::string_view kNet = R"(Switch 6 "s1"
[1] "ha"[1]
[2] "hb"[1]
[3] "hx"[1]
[4] "hx"[2]

Hca 1 "ha"
[1] "s1"[1]

Hca 1 "hb"
[1] "s1"[2]

Hca 2 "hx"
[1] "s1"[3]
[2] "s1"[4]
)";

// GUIDInfoRecord (IBA 15.2.5.18): LID at byte 0, BlockNum at 2, GUIDs from byte 8;
// component mask bit 0 LID, bit 1 BlockNum, bits 4-11 GUID0-7.
constexpr std::size_t kRecordSize = 72;
constexpr std::uint64_t kMaskLid = 1u << 0;
constexpr std::uint64_t kMaskBlock = 1u << 1;
constexpr std::uint64_t mask_guid(unsigned i) {
  return 1ull << (4 + i);
}

constexpr Guid kAliasA = 0x0002c90300a1a1a1;
constexpr Guid kAliasB = 0x0002c90300b2b2b2;
constexpr Guid kAliasC = 0x0002c90300c3c3c3;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// An SM on a FakeFabric whose CA ports and switch port 0 have GUIDCap 16 (two
// blocks), with sa_db_dump on and `db_file` as sa_db_file.
class Rig {
 public:
  explicit Rig(const std::string& db_file = {}) {
    auto d = testsupport::parse_net(kNet);
    if (!d.ok()) std::abort();
    desc = *d;
    fake::FakeOptions fo;
    fo.guid_cap = 16;
    fabric = std::make_unique<fake::FakeFabric>(desc, clock, fo);
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "ibsm-alias-db-test-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    dir = tmpl;
    conf::Options o;
    o.cache_dir = dir + "/cache";
    o.dump_files_dir = dir;
    o.partition_config_file = dir + "/partitions.conf";
    o.sa_db_dump = true;
    o.sa_db_file = db_file;
    sm = std::make_unique<sm::SubnetManager>(*fabric, clock, null_logger(), o);
    sm->request_heavy_sweep(sm::HeavyReason::kForced);
    EXPECT_TRUE(sm->sweep(stop).subnet_up);
  }
  ~Rig() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  // One step of run()'s loop between sweeps: queued alias blocks go out, and a
  // light sweep drains the SMP client as run()'s polls do.
  std::size_t loop_step() {
    const std::size_t queued = sm->program_alias_changes();
    static_cast<void>(sm->sweep(stop));
    return queued;
  }
  std::string dump_path() const { return dir + "/opensm-sa.dump"; }
  Guid guid(const char* id, mad::PortNum port = 1) const {
    return desc.nodes[fabric->index(id)].port_guid(port);
  }
  Lid lid(const char* id, mad::PortNum port = 1) const {
    const Guid g = guid(id, port);
    for (const auto& n : sm->fabric().nodes())
      for (const auto& p : n.ports)
        if (p.guid == g && p.lid != 0) return p.lid;
    ADD_FAILURE() << "no LID for " << id;
    return 0;
  }
  // The fake port's GUIDInfo table.
  const std::vector<Guid>& port_table(const char* id, mad::PortNum port = 1) const {
    return fabric->node(fabric->index(id)).ports[port].guids;
  }
  const AliasGuids& aliases() { return sm->sa().state().aliases; }

  // A GUIDInfoRecord request from ha about the port with `lid`: `guids` selects
  // entries (index, GUID). Returns the status and the GUIDs of the first record.
  std::pair<std::uint16_t, GuidBlock> guid_info(
      std::uint8_t method, Lid port_lid, std::uint8_t block,
      const std::vector<std::pair<unsigned, Guid>>& guids) {
    SaMad req;
    req.header.method = method;
    req.header.tid = ++tid_;
    req.header.attr_id = attr::kGuidInfoRecord;
    req.header.comp_mask = kMaskLid | kMaskBlock;
    req.data.assign(kDataSize, 0);
    req.data[0] = static_cast<std::uint8_t>(port_lid >> 8);
    req.data[1] = static_cast<std::uint8_t>(port_lid);
    req.data[2] = block;
    for (const auto& [i, g] : guids) {
      req.header.comp_mask |= mask_guid(i);
      for (std::size_t b = 0; b < 8; ++b)
        req.data[8 + 8 * i + b] = static_cast<std::uint8_t>(g >> (8 * (7 - b)));
    }
    mad::MadAddress from;
    from.lid = lid("ha");
    const SaResponse r = sm->sa().answer(req, from);
    std::pair<std::uint16_t, GuidBlock> out{0xffff, {}};
    if (r.bytes.size() < kHeaderSize) {
      ADD_FAILURE() << "the SA did not answer";
      return out;
    }
    const SaHeader h = decode_header(r.bytes);
    out.first = h.status;
    if (h.attr_offset != 0 && r.bytes.size() >= kHeaderSize + kRecordSize) {
      for (std::size_t i = 0; i < kGuidsPerBlock; ++i) {
        Guid g = 0;
        for (std::size_t b = 0; b < 8; ++b)
          g = (g << 8) | r.bytes[kHeaderSize + 8 + 8 * i + b];
        out.second[i] = g;
      }
    }
    return out;
  }
  GuidBlock get_block(Lid port_lid, std::uint8_t block) {
    auto [st, guids] = guid_info(method::kGet, port_lid, block, {});
    EXPECT_EQ(st, status::kOk);
    return guids;
  }

  FakeClock clock;
  std::string dir;
  testsupport::Fabric desc;
  std::unique_ptr<fake::FakeFabric> fabric;
  std::atomic<bool> stop{false};
  std::unique_ptr<sm::SubnetManager> sm;

 private:
  std::uint64_t tid_ = 0x700;
};

// What one GUIDInfo line of the dump says, found by port GUID and block.
std::string line_of(const std::string& text, Guid base, unsigned block) {
  char key[96];
  std::snprintf(key, sizeof key, "GUIDInfo Record: base_guid=0x%016llx",
                static_cast<unsigned long long>(base));
  char blk[24];
  std::snprintf(blk, sizeof blk, " block_num=0x%x ", block);
  for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + 1)) {
    const std::string line = text.substr(at, text.find('\n', at) - at);
    if (line.find(blk) != std::string::npos) return line;
  }
  return {};
}

std::string hex(Guid g) {
  char s[24];
  std::snprintf(s, sizeof s, "0x%016llx", static_cast<unsigned long long>(g));
  return s;
}

TEST(AliasDatabase, DumpedAliasesComeBackInANewSmAndIntoThePorts) {
  std::string file;
  Guid chosen = 0;
  {
    Rig first;
    const Lid hb = first.lid("hb");
    const Lid hx2 = first.lid("hx", 2);
    auto [st, block] = first.guid_info(method::kSet, hb, 0, {{1, kAliasA}, {2, 0}});
    ASSERT_EQ(st, status::kOk);
    chosen = block[2];
    EXPECT_EQ(chosen >> 40, 0x001405u) << "an SA-assigned GUID";
    ASSERT_EQ(first.guid_info(method::kSet, hx2, 1, {{3, kAliasB}}).first, status::kOk);
    // Alias changes alone make the database worth writing again (OpenSM's sa.dirty).
    ASSERT_TRUE(first.sm->sa().dump_db());
    EXPECT_FALSE(first.sm->sa().dump_db()) << "nothing changed since";
    const std::string text = read_text(first.dump_path());
    // Every block of each table, with the port's LID, as OpenSM writes them.
    const std::string b0 = line_of(text, first.guid("hb"), 0);
    ASSERT_FALSE(b0.empty()) << text;
    char lid_field[24];
    std::snprintf(lid_field, sizeof lid_field, " lid=0x%04x ", unsigned{hb});
    EXPECT_NE(b0.find(lid_field), std::string::npos) << b0;
    EXPECT_NE(b0.find("guid0=" + hex(first.guid("hb"))), std::string::npos) << b0;
    EXPECT_NE(b0.find("guid1=" + hex(kAliasA)), std::string::npos) << b0;
    EXPECT_NE(b0.find("guid2=" + hex(chosen)), std::string::npos) << b0;
    EXPECT_FALSE(line_of(text, first.guid("hb"), 1).empty()) << "the empty block too";
    EXPECT_NE(line_of(text, first.guid("hx", 2), 1).find("guid3=" + hex(kAliasB)),
              std::string::npos);
    EXPECT_TRUE(line_of(text, first.guid("ha"), 0).empty()) << "no table, no line";
    // The dump reads back as it was written.
    const SaDbParse parsed = parse_sa_db(text, "dump");
    EXPECT_FALSE(parsed.error);
    EXPECT_EQ(parsed.db.kept.guid_info.size(), 4u);
    file = std::filesystem::temp_directory_path() /
           ("ibsm-alias-db-" + std::to_string(::getpid()) + ".dump");
    std::filesystem::copy_file(first.dump_path(), file,
                               std::filesystem::copy_options::overwrite_existing);
  }

  Rig second(file);
  std::filesystem::remove(file);
  const Lid hb = second.lid("hb");
  const Lid hx2 = second.lid("hx", 2);
  // Restored at the first publish: the SA answers with them and owns the GUIDs.
  EXPECT_EQ(second.aliases().port_of(kAliasA), second.guid("hb"));
  EXPECT_EQ(second.aliases().port_of(chosen), second.guid("hb"));
  EXPECT_EQ(second.aliases().port_of(kAliasB), second.guid("hx", 2));
  const GuidBlock want_hb{second.guid("hb"), kAliasA, chosen, 0, 0, 0, 0, 0};
  EXPECT_EQ(second.get_block(hb, 0), want_hb);
  const GuidBlock want_hx{0, 0, 0, kAliasB, 0, 0, 0, 0};
  EXPECT_EQ(second.get_block(hx2, 1), want_hx);
  // The sweep that found the ports programmed before the restore; the loop step
  // after it writes the tables into the ports.
  EXPECT_EQ(second.port_table("hb")[1], 0u);
  EXPECT_EQ(second.loop_step(), 2u);
  ASSERT_EQ(second.port_table("hb").size(), 16u);
  EXPECT_EQ(second.port_table("hb")[0], second.guid("hb"));
  EXPECT_EQ(second.port_table("hb")[1], kAliasA);
  EXPECT_EQ(second.port_table("hb")[2], chosen);
  EXPECT_EQ(second.port_table("hx", 2)[8 + 3], kAliasB);
  // A restored GUID is taken: nobody else gets it.
  EXPECT_EQ(second.guid_info(method::kSet, hx2, 0, {{5, kAliasA}}).second[5], 0u);

  // What the file held is not written again for nothing; a change writes the
  // restored tables with it, so a second restart keeps them all.
  EXPECT_FALSE(second.sm->sa().dump_db());
  ASSERT_EQ(second.guid_info(method::kSet, hb, 1, {{0, kAliasC}}).first, status::kOk);
  ASSERT_TRUE(second.sm->sa().dump_db());
  const std::string text = read_text(second.dump_path());
  EXPECT_NE(line_of(text, second.guid("hb"), 0).find("guid1=" + hex(kAliasA)), std::string::npos);
  EXPECT_NE(line_of(text, second.guid("hb"), 1).find("guid0=" + hex(kAliasC)), std::string::npos);
  EXPECT_NE(line_of(text, second.guid("hx", 2), 1).find("guid3=" + hex(kAliasB)),
            std::string::npos);
}

TEST(AliasDatabase, RestoreFollowsOpenSmsRules) {
  // Written by hand in OpenSM's format: hb's block 0 with its own GUID at index 0
  // (never an alias), an alias and another port's GUID; a block beyond GUIDCap 16;
  // a port no longer in the fabric.
  Rig probe;  // only for the GUIDs the fake gives the ports
  const Guid hb = probe.guid("hb");
  const Guid hx1 = probe.guid("hx", 1);
  const std::string file = (std::filesystem::temp_directory_path() /
                            ("ibsm-alias-rules-" + std::to_string(::getpid()) + ".dump"))
                               .string();
  {
    std::ofstream out(file);
    auto line = [&](Guid base, unsigned block, const GuidBlock& g) {
      out << "GUIDInfo Record: base_guid=" << hex(base) << " lid=0x0003 block_num=0x" << block;
      for (std::size_t i = 0; i < g.size(); ++i)
        out << " guid" << i << "=" << hex(g[i]);
      out << "\n\n";
    };
    line(hb, 0, {hb, kAliasA, hx1, 0, 0, 0, 0, 0});
    line(hb, 2, {kAliasB, 0, 0, 0, 0, 0, 0, 0});
    line(0x00000000deadbeef, 0, {0x00000000deadbeef, kAliasC, 0, 0, 0, 0, 0, 0});
  }
  Rig r(file);
  std::filesystem::remove(file);
  EXPECT_EQ(r.aliases().port_of(kAliasA), hb);
  EXPECT_EQ(r.aliases().port_of(hx1), 0u) << "a port's own GUID is nobody's alias";
  EXPECT_EQ(r.aliases().port_of(kAliasB), 0u) << "beyond GUIDCap";
  EXPECT_EQ(r.aliases().port_of(kAliasC), 0u) << "port not in the fabric";
  const std::vector<Guid>* t = r.aliases().table(hb);
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->size(), 16u);
  EXPECT_EQ((*t)[0], hb);
  EXPECT_EQ((*t)[1], kAliasA);
  EXPECT_EQ((*t)[2], 0u);
  EXPECT_EQ(r.aliases().table(0x00000000deadbeef), nullptr);
  EXPECT_TRUE(r.sm->sa().state().db_kept.guid_info.empty()) << "all placed or dropped";
  EXPECT_EQ(r.loop_step(), 1u);
  EXPECT_EQ(r.port_table("hb")[1], kAliasA);
}

TEST(AliasDatabase, RestoringTwiceChangesNothing) {
  Rig r;
  const Guid hb = r.guid("hb");
  SaDbKept kept;
  DbGuidInfo g;
  g.base_guid = hb;
  g.block = 0;
  g.guids = {hb, kAliasA, 0, 0, 0, 0, 0, 0};
  kept.guid_info = {g, g};
  AliasGuids& aliases = r.sm->sa().state().aliases;
  const AliasesRestored n = restore_alias_guids(kept, aliases, *r.sm->sa().snapshot());
  EXPECT_EQ(n.blocks, 2u);
  EXPECT_EQ(n.guids, 2u);
  EXPECT_EQ(n.skipped, 0u);
  EXPECT_TRUE(kept.guid_info.empty());
  EXPECT_FALSE(aliases.dirty()) << "the file already holds them";
  const auto pending = aliases.take_pending();
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].port_guid, hb);
  EXPECT_EQ(pending[0].guids[1], kAliasA);
}

}  // namespace
}  // namespace ibsm::sa
