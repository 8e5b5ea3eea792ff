#include "tests/unit/sa/sa_fixture.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <filesystem>

#include "tests/support/net_file.hpp"

namespace ibsm::satest {

//   ha --1[ s1 ]3====3[ s2 ]1-- hc
//   hb --2[    ]       [    ]2-- hd
//   hx port 1 -- s1 port 4; hx port 2 -- s2 port 4
const std::string_view kSmallNet = R"(Switch 8 "s1"
[1] "ha"[1]
[2] "hb"[1]
[3] "s2"[3]
[4] "hx"[1]

Switch 8 "s2"
[1] "hc"[1]
[2] "hd"[1]
[3] "s1"[3]
[4] "hx"[2]

Hca 1 "ha"
[1] "s1"[1]

Hca 1 "hb"
[1] "s1"[2]

Hca 1 "hc"
[1] "s2"[1]

Hca 1 "hd"
[1] "s2"[2]

Hca 2 "hx"
[1] "s1"[4]
[2] "s2"[4]
)";

Status CapturingFabric::send_gsi(std::span<const std::uint8_t> mad, const mad::MadAddress& to,
                                 std::uint32_t) {
  if (mad.size() > gsi_max_) return fail(mad::kErrSendFailed, "longer than the transport carries");
  sent.push_back({std::vector<std::uint8_t>(mad.begin(), mad.end()), to});
  return {};
}

SaRig::SaRig(std::string_view net, conf::Options options, std::size_t gsi_max) {
  auto parsed = testsupport::parse_net(net);
  if (!parsed.ok()) {
    ADD_FAILURE() << parsed.error().message;
    return;
  }
  desc = *parsed;
  std::string tmpl = (std::filesystem::temp_directory_path() / "ibsm-sa-test-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
  cache_dir = tmpl;
  options.cache_dir = cache_dir;
  options.dump_files_dir = cache_dir;
  fabric = std::make_unique<CapturingFabric>(desc, clock, gsi_max);
  sm = std::make_unique<sm::SubnetManager>(*fabric, clock, null_logger(), options);
  std::atomic<bool> stop{false};
  auto r = sm->sweep(stop);
  EXPECT_TRUE(r.subnet_up) << "the SA rig's fabric did not come up";
}

SaRig::~SaRig() {
  std::error_code ec;
  if (!cache_dir.empty()) std::filesystem::remove_all(cache_dir, ec);
}

sa::SaServer& SaRig::sa() {
  return sm->sa();
}

std::optional<SaRig::Answer> SaRig::raw(std::span<const std::uint8_t> bytes, mad::Lid slid) {
  mad::IncomingMad in;
  in.length = bytes.size();
  std::copy_n(bytes.begin(), std::min<std::size_t>(bytes.size(), 256), in.bytes.begin());
  if (bytes.size() > 256) in.tail.assign(bytes.begin() + 256, bytes.end());
  in.slid = slid;
  in.sqpn = 1;
  in.from.lid = slid;
  in.from.qpn = 1;
  const std::size_t before = fabric->sent.size();
  sa().handle(in);
  if (fabric->sent.size() == before) return std::nullopt;
  Answer a;
  a.bytes = fabric->sent.back().bytes;
  if (a.bytes.size() < sa::kHeaderSize) return a;
  a.header = sa::decode_header(a.bytes);
  a.data.assign(a.bytes.begin() + sa::kHeaderSize, a.bytes.end());
  // An error answer is a whole MAD; its records (none) are described by AttributeOffset 0.
  if (a.header.attr_offset == 0) a.data.clear();
  return a;
}

std::optional<SaRig::Answer> SaRig::request(std::uint8_t method, std::uint16_t attr_id,
                                            std::span<const std::uint8_t> record,
                                            std::uint64_t comp_mask, mad::Lid slid,
                                            std::uint64_t sm_key, std::uint32_t attr_mod) {
  sa::SaHeader h;
  h.method = method;
  h.tid = next_tid_++;
  h.attr_id = attr_id;
  h.attr_mod = attr_mod;
  h.sm_key = sm_key;
  h.comp_mask = comp_mask;
  std::vector<std::uint8_t> bytes(sa::kMadSize, 0);
  sa::encode_header(h, bytes);
  std::copy_n(record.begin(), std::min(record.size(), sa::kDataSize),
              bytes.begin() + sa::kHeaderSize);
  return raw(bytes, slid);
}

mad::Lid SaRig::lid_of(std::string_view node, mad::PortNum port) const {
  const auto& f = sm->fabric();
  for (const auto& n : f.nodes()) {
    if (n.description != node) continue;
    return n.is_switch() ? n.ports[0].lid : n.ports[port].lid;
  }
  ADD_FAILURE() << "no node " << node;
  return 0;
}

mad::Guid SaRig::port_guid_of(std::string_view node, mad::PortNum port) const {
  const auto& f = sm->fabric();
  for (const auto& n : f.nodes()) {
    if (n.description != node) continue;
    return n.is_switch() ? n.ports[0].guid : n.ports[port].guid;
  }
  ADD_FAILURE() << "no node " << node;
  return 0;
}

}  // namespace ibsm::satest
