// Writes the generated part of the seed corpora: the SMPs of smp_attributes and
// mad_dispatch from real traffic (an SM sweeping the fake fabric of tests/fake/
// answers with every attribute it reads; the unsolicited MADs an SM receives,
// traps and another SM's SMInfo, are built with the mad/ encoders), and the
// default configuration as opensm.conf and as TOML from ibsm's own writers.
// Deterministic: run it again and the files come out the same.
//   ninja -C <build> tests/fuzz/make_corpus
//   <build>/tests/fuzz/make_corpus tests/fuzz/corpus
#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/log.hpp"
#include "conf/opensm_conf_writer.hpp"
#include "conf/options.hpp"
#include "conf/toml_writer.hpp"
#include "mad/attr/guid_info.hpp"
#include "mad/attr/mft_block.hpp"
#include "mad/attr/notice.hpp"
#include "mad/attr/sm_info.hpp"
#include "sm/subnet_manager.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/builders.hpp"

namespace {

using namespace ibsm;
namespace fs = std::filesystem;

// Keeps the first two answers of each (class, attribute, method).
class RecordingFabric final : public fake::FakeFabric {
 public:
  using FakeFabric::FakeFabric;
  std::vector<mad::IncomingMad> kept;

  std::optional<mad::IncomingMad> receive(std::chrono::milliseconds max_wait) override {
    auto in = FakeFabric::receive(max_wait);
    if (in && in->length >= 24) {
      const auto key = std::make_pair(in->bytes[1], (in->bytes[16] << 8) | in->bytes[17]);
      if (seen_[key]++ < 2) kept.push_back(*in);
    }
    return in;
  }

 private:
  std::map<std::pair<int, int>, int> seen_;
};

void write(const fs::path& file, const std::uint8_t* data, std::size_t size, std::uint8_t prefix,
           bool with_prefix) {
  std::ofstream out(file, std::ios::binary);
  if (with_prefix) out.put(static_cast<char>(prefix));
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
}

mad::Smp trap(std::uint16_t number, mad::Lid issuer, std::uint32_t tid) {
  mad::Notice n;
  n.is_generic = true;
  n.type = number >= 256 ? 1 : 4;  // security traps are urgent (IBA 14.2.5.1)
  n.producer_type = 2;             // switch
  n.trap_number = number;
  n.issuer_lid = issuer;
  n.details[0] = 0;
  n.details[1] = static_cast<std::uint8_t>(issuer);
  n.details[2] = 0;
  n.details[3] = static_cast<std::uint8_t>(issuer);
  auto smp = mad::Smp::request(mad::Method::kTrap, mad::AttrId::kNotice, 0, mad::Lid{1}, tid);
  smp.set_attribute(n);
  return smp;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR (tests/fuzz/corpus)\n", argv[0]);
    return 2;
  }
  const fs::path root = argv[1];
  const fs::path attrs = root / "smp_attributes";
  const fs::path dispatch = root / "mad_dispatch";
  fs::create_directories(attrs);
  fs::create_directories(dispatch);

  FakeClock clock;
  const testsupport::Fabric desc = testsupport::two_level_fat_tree(2, 2, 2);
  RecordingFabric fabric(desc, clock);
  std::string tmpl = (fs::temp_directory_path() / "ibsm-corpus-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) return 1;
  conf::Options options;
  options.cache_dir = tmpl;
  options.dump_files_dir = tmpl;
  options.log_flags |= 0x40;          // routing logging: the LFT and LID matrix dumps are written
  options.routing_engine = "dfsssp";  // per-path SLs: the SL2VL tables are read and set
  {
    // Past SUBNET UP too: the SL2VL/VLArbitration tables are read then.
    sm::SubnetManager sm(fabric, clock, null_logger(), options);
    sm::ControlFlags control;
    const auto until = clock.now() + std::chrono::seconds(3);
    while (clock.now() < until)
      (void)sm.step(control);
  }
  for (const auto& [file, target] : {std::pair{"opensm-lfts.dump", "lft_dump"},
                                     std::pair{"opensm-lid-matrix.dump", "lid_matrix"}}) {
    fs::create_directories(root / target);
    fs::copy_file(fs::path(tmpl) / file, root / target / file,
                  fs::copy_options::overwrite_existing);
  }
  fs::remove_all(tmpl);

  int n = 0;
  for (const auto& in : fabric.kept) {
    char name[64];
    std::snprintf(
        name, sizeof name, "answer-%s-%02d.mad",
        std::string(mad::attr_name(static_cast<mad::AttrId>((in.bytes[16] << 8) | in.bytes[17])))
            .c_str(),
        n++);
    write(attrs / name, in.bytes.data(), in.length, 0, false);
  }

  // Unsolicited: traps (link state change, SM gone, capability change, security),
  // another SM's SMInfo Get and Set (handover, acknowledge, disable).
  std::vector<std::pair<std::string, mad::Smp>> requests;
  for (std::uint16_t t : {128, 129, 130, 131, 144, 145, 256, 257, 258, 259})
    requests.emplace_back("trap-" + std::to_string(t), trap(t, 3, 0x100 + t));
  mad::SmInfo other;
  other.guid = 0x0002c90300000999ull;
  other.priority = 15;
  other.state = mad::SmState::kMaster;
  for (std::uint32_t mod : {0u, 1u, 2u, 3u, 4u, 5u}) {
    auto m = mad::Method::kSet;
    if (mod == 0) m = mad::Method::kGet;
    auto smp = mad::Smp::request(m, mad::AttrId::kSmInfo, mod, mad::DrPath{}, 0x200 + mod);
    smp.set_attribute(other);
    requests.emplace_back(
        "sminfo-" + std::string(m == mad::Method::kGet ? "get" : "set") + "-" + std::to_string(mod),
        smp);
  }
  // Tables the small sweep does not read (no multicast groups, no alias GUIDs).
  mad::MftBlock mft;
  mft.masks[0] = 0x0006;
  mft.masks[31] = 0x8001;
  auto mft_answer = mad::Smp::request(mad::Method::kGetResp, mad::AttrId::kMulticastForwardingTable,
                                      mad::mft_attr_mod(1, 0), mad::DrPath{}, 0x300);
  mft_answer.set_attribute(mft);
  requests.emplace_back("answer-MulticastForwardingTable", mft_answer);
  mad::GuidInfoBlock guids;
  guids.guids[0] = 0x0002c90300001234ull;
  guids.guids[1] = 0x0002c903aa000001ull;
  auto guid_answer =
      mad::Smp::request(mad::Method::kGetResp, mad::AttrId::kGuidInfo, 0, mad::Lid{3}, 0x301);
  guid_answer.set_attribute(guids);
  requests.emplace_back("answer-GUIDInfo", guid_answer);
  for (const auto& [name, smp] : requests) {
    write(attrs / (name + ".mad"), smp.bytes().data(), smp.bytes().size(), 0, false);
    // mad_dispatch: an even first byte delivers the rest unsolicited (from a CA).
    write(dispatch / (name + ".mad"), smp.bytes().data(), smp.bytes().size(), 0, true);
  }
  // mad_dispatch: odd first byte spoils a sweep's answers with the rest.
  const std::vector<std::vector<std::uint8_t>> spoilers = {
      {0x01, 0x40, 0x00},                    // first answer: data byte 0 cleared
      {0x00, 0x00, 0x81, 0x12, 0x00, 0x30},  // third answer: attribute id, cut to 48
      {0x00, 0x01, 0x03, 0xff, 0x00, 0x02, 0x05, 0x43, 0x00, 0x20, 0x13, 0x01, 0x44, 0xff},
      // answers 13 on: port numbers, states and LIDs in the data areas overwritten
      {0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0x03,
       0x40, 0x00, 0x48, 0xff, 0x63, 0x09, 0,    0,    0,    0,    0,    0x02, 0x41,
       0x05, 0x50, 0x00, 0,    0,    0,    0x81, 0x10, 0x07, 0x43, 0xff, 0x44, 0x00,
       0x45, 0x01, 0x46, 0x02, 0x47, 0x03, 0x48, 0x04, 0x49, 0x05},
  };
  int s = 0;
  for (const auto& sp : spoilers)
    write(dispatch / ("spoil-" + std::to_string(s++) + ".bin"), sp.data(), sp.size(), 1, true);
  // The defaults, in both configuration formats.
  const conf::Options defaults;
  const std::string conf_text = conf::write_opensm_conf(defaults);
  const std::string toml_text = conf::write_toml(defaults);
  fs::create_directories(root / "opensm_conf");
  fs::create_directories(root / "toml");
  std::ofstream(root / "opensm_conf" / "ibsm-defaults.conf") << conf_text;
  std::ofstream(root / "toml" / "ibsm-defaults.toml") << toml_text;
  std::printf("wrote %d answers and %zu requests\n", n, requests.size());
  return 0;
}
