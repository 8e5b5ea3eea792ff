#include "tests/unit/sa/fuzz_harness.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "sa/record_layout.hpp"
#include "sa/sa_mad.hpp"

namespace ibsm::satest {

namespace {

// Partitions with limited and full members, an IPoIB group per partition, more
// groups of other scopes and parameters: enough for MCMemberRecord and the P_Key
// rules of every record to have something to decide.
constexpr const char* kFuzzPartitions =
    "Default=0x7fff, ipoib, scope=2, scope=5 : ALL=full;\n"
    "Storage=0x0010, ipoib, mtu=5, rate=7, sl=2 : 0x100001=full, 0x100003=limited;\n"
    "X=0x0020, Q_Key=0x1234, TClass=7, FlowLabel=0x123 :\n"
    "  mgid=ff15::5\n"
    "  mgid=ff12:601b::1, sl=3\n"
    "  0x100005=full, 0x100009;\n";

std::unique_ptr<SaRig> make_rig(std::size_t gsi_max) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("ibsm-sa-fuzz-" + std::to_string(::getpid()) + ".conf");
  std::ofstream(path) << kFuzzPartitions;
  conf::Options o;
  o.partition_config_file = path.string();
  auto rig = std::make_unique<SaRig>(kSmallNet, o, gsi_max);
  std::filesystem::remove(path);
  return rig;
}

std::vector<std::uint8_t> be(std::uint64_t v, std::size_t n) {
  std::vector<std::uint8_t> out(n);
  for (std::size_t i = 0; i < n; ++i)
    out[i] = static_cast<std::uint8_t>(v >> (8 * (n - 1 - i)));
  return out;
}

std::uint8_t expected_method(std::uint8_t request) {
  return request == sa::method::kSet
             ? sa::method::kGetResp
             : static_cast<std::uint8_t>(request | sa::method::kResponseBit);
}

// RMPP messages (IBA 15.2.2 table 184).
bool is_table(std::uint8_t resp) {
  return resp == sa::method::kGetTableResp || resp == sa::method::kGetMultiResp ||
         resp == sa::method::kGetTraceTableResp;
}

}  // namespace

std::string judge_sa_answer(std::span<const std::uint8_t> req, int status,
                            std::span<const std::uint8_t> b, bool kernel_rmpp) {
  using namespace sa;
  if (req.size() < kHeaderSize) return "answered a MAD shorter than the SA header";
  if (status != 0) return "answered a send the kernel gave up on";
  const SaHeader q = decode_header(req);
  if (q.base_version != kBaseVersion || q.mgmt_class != kClassSubnAdm)
    return "answered a MAD that is not an SA MAD";
  if (q.is_response()) return "answered a response";
  if (b.size() < kHeaderSize) return "answer of " + std::to_string(b.size()) + " bytes";
  const SaHeader h = decode_header(b);
  const std::string at =
      " (answer of " + std::to_string(b.size()) + " bytes, status 0x" + hex(be(h.status, 2)) + ")";
  if (h.base_version != kBaseVersion || h.mgmt_class != kClassSubnAdm)
    return "answer is not an SA MAD" + at;
  if (h.class_version != q.class_version) return "answer changes the class version" + at;
  if (h.method != expected_method(q.method))
    return "answer method 0x" + hex(be(h.method, 1)) + " to method 0x" + hex(be(q.method, 1)) + at;
  if (h.tid != q.tid) return "TID not echoed" + at;
  const bool multipath_as_path =
      q.attr_id == attr::kMultiPathRecord && h.attr_id == attr::kPathRecord;
  if (h.attr_id != q.attr_id && !multipath_as_path) return "answer about another attribute" + at;
  if (h.attr_mod != q.attr_mod) return "AttributeModifier not echoed" + at;
  if (h.sm_key != 0) return "answer reveals an SM_Key" + at;
  const bool table = is_table(h.method);
  const std::size_t ao = std::size_t{h.attr_offset} * 8;
  if (ao == 0) {
    if (h.status != 0 && b.size() != kMadSize) return "error answer is not a whole MAD" + at;
    if (h.status == 0 && !table) return "successful answer without a record" + at;
    if (h.status == 0 && b.size() != kHeaderSize) return "empty table with data" + at;
  } else {
    if ((b.size() - kHeaderSize) % ao != 0)
      return "length is not 56 + n * AttributeOffset * 8 (AttributeOffset " +
             std::to_string(h.attr_offset) + ")" + at;
    const std::size_t n = (b.size() - kHeaderSize) / ao;
    if (n == 0) return "AttributeOffset set on an answer without records" + at;
    if (!table && n != 1) return std::to_string(n) + " records in a single-record answer" + at;
    const RecordLayout* layout = find_layout(h.attr_id);
    if (layout != nullptr && h.status == 0 && h.attr_offset != layout->words())
      return "AttributeOffset " + std::to_string(h.attr_offset) + " for a record of " +
             std::to_string(layout->words()) + " words" + at;
  }
  const bool rmpp_clear =
      std::all_of(b.begin() + 24, b.begin() + 36, [](auto x) { return x == 0; });
  if (!table && !rmpp_clear) return "RMPP header in a single-MAD answer" + at;
  if (table) {
    if (kernel_rmpp) {
      if (h.rmpp_flags != rmpp::kFlagActive || h.rmpp_segment != 0 || h.rmpp_type != 0)
        return "table for the kernel's RMPP must carry ACTIVE only" + at;
    } else {
      if (b.size() > kMadSize) return "table longer than one MAD on a single-MAD transport" + at;
      if (h.rmpp_version != 1 || h.rmpp_type != rmpp::kTypeData ||
          h.rmpp_flags != (rmpp::kFlagActive | rmpp::kFlagFirst | rmpp::kFlagLast) ||
          h.rmpp_segment != 1 || h.rmpp_length != b.size() - 36)
        return "single-MAD table is not one self-contained RMPP segment" + at;
    }
  }
  return {};
}

std::string hex(std::span<const std::uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 3);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i != 0) out += bytes.size() > 2 ? " " : "";
    out += kDigits[bytes[i] >> 4];
    out += kDigits[bytes[i] & 0xf];
  }
  return out;
}

FuzzHarness::FuzzHarness() : kernel_(make_rig(std::size_t{1} << 20)), single_(make_rig(256)) {
  const sa::Snapshot& s = *kernel_->sa().snapshot();
  auto add = [&](std::uint64_t v, std::size_t n) { dict_[n].push_back(be(v, n)); };
  for (std::uint64_t v : {0x0ull, 0x1ull, 0x2ull, 0x3ull, 0x4ull, 0x5ull, 0x80ull, 0xffull})
    add(v, 1);
  for (std::uint64_t v : {0x0ull, 0x1ull, 0xffffull, 0x7fffull, 0x8001ull, 0xbfffull, 0xc000ull})
    add(v, 2);
  for (std::uint64_t v : {0x0ull, 0x0b1bull, 0x1234ull, 0x80010000ull, 0xffffffffull})
    add(v, 4);
  for (std::uint64_t v : {std::uint64_t{0}, ~std::uint64_t{0}, s.subnet_prefix})
    add(v, 8);
  dict_[16].push_back(std::vector<std::uint8_t>(16, 0));
  for (const sa::SnapNode& n : s.nodes) {
    add(n.guid(), 8);
    for (const sa::SnapPort& p : n.ports) {
      if (!p.present) continue;
      if (p.lid != 0) {
        add(p.lid, 2);
        (n.is_switch() ? switch_lids_ : ca_lids_).push_back(p.lid);
      }
      if (p.guid == 0) continue;
      add(p.guid, 8);
      auto gid = be(s.subnet_prefix, 8);
      const auto guid = be(p.guid, 8);
      gid.insert(gid.end(), guid.begin(), guid.end());
      dict_[16].push_back(gid);
    }
  }
  for (const sa::SnapGroup& g : s.groups) {
    dict_[16].emplace_back(g.mgid.begin(), g.mgid.end());
    add(g.mlid, 2);
    add(g.pkey, 2);
    add(g.qkey, 4);
  }
  for (const std::uint16_t pkey : {0xffffu, 0x8010u, 0x0010u}) {  // IPoIB MGIDs
    std::vector<std::uint8_t> mgid = {0xff,
                                      0x12,
                                      0x40,
                                      0x1b,
                                      static_cast<std::uint8_t>(pkey >> 8),
                                      static_cast<std::uint8_t>(pkey)};
    mgid.resize(16, 0);
    mgid[15] = 1;
    dict_[16].push_back(mgid);
  }
}

FuzzHarness::~FuzzHarness() = default;

const std::vector<std::vector<std::uint8_t>>& FuzzHarness::dictionary(std::size_t bytes) const {
  static const std::vector<std::vector<std::uint8_t>> kNone;
  return bytes < 17 ? dict_[bytes] : kNone;
}

std::string FuzzHarness::feed(std::span<const std::uint8_t> bytes, mad::Lid slid, bool kernel_rmpp,
                              int status) {
  SaRig& r = rig(kernel_rmpp);
  mad::IncomingMad in;
  in.length = bytes.size();
  std::copy_n(bytes.begin(), std::min<std::size_t>(bytes.size(), 256), in.bytes.begin());
  if (bytes.size() > 256) in.tail.assign(bytes.begin() + 256, bytes.end());
  in.status = status;
  in.slid = slid;
  in.sqpn = 1;
  in.from.lid = slid;
  in.from.qpn = 1;
  auto& sent = r.fabric->sent;
  sent.clear();
  const std::uint64_t failed = r.sa().counters().send_failed;
  r.sa().handle(in);
  last_answered_ = !sent.empty();
  last_answer_.clear();
  if (r.sa().counters().send_failed != failed) return "an answer longer than the transport carries";
  if (sent.empty()) return {};
  if (sent.size() > 1) return std::to_string(sent.size()) + " answers to one request";
  last_answer_ = sent.front().bytes;
  std::string problem = judge_sa_answer(bytes, status, last_answer_, kernel_rmpp);
  if (problem.empty() && !(sent.front().to.lid == slid && sent.front().to.qpn == 1))
    problem = "answer not addressed to the requester";
  sent.clear();
  return problem;
}

FuzzHarness& fuzz_harness() {
  static FuzzHarness h;
  return h;
}

}  // namespace ibsm::satest
