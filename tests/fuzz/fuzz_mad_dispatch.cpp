// Fuzz target: raw MADs into the SM's incoming path, with no daemon: a
// SubnetManager master of a small FakeFabric (tests/fake/), whose transport also
// delivers what the fuzzer gives. The first byte picks how the rest is used:
//  - even: one MAD of any length arriving at the SM's port unsolicited (SMPs:
//    another SM's SMInfo, traps with Notices; SA and unknown classes through the
//    dispatcher), from a CA, a switch, the SM's own port or LID 0, with or without
//    a kernel error status. The SM must answer and keep running.
//  - odd: the rest mangles the fabric's answers during a heavy sweep (bytes of
//    the headers and data areas overwritten, MADs cut short). The SM must survive
//    it, and the next clean heavy sweep must bring the subnet up with complete,
//    loop-free routes: garbage never leaves lasting damage.
//    A garbled PortInfo answer must not make the SM write a garbled M_Key back
//    (sm/links/port_config.cpp writes its own, 0 without m_key, as OpenSM does).
#include <stdlib.h>
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/log.hpp"
#include "conf/options.hpp"
#include "mad/attr/port_info.hpp"
#include "sm/subnet_manager.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/fuzz/fuzz_check.hpp"
#include "tests/support/net_file.hpp"

namespace {

using namespace ibsm;
using namespace std::chrono_literals;
constexpr std::string_view kTarget = "mad_dispatch";

//   ha --1[ s1 ]3====3[ s2 ]1-- hc
//   hb --2[    ]       [    ]2-- hx port 2
//   hx port 1 -- s1 port 4
constexpr std::string_view kNet = R"(Switch 8 "s1"
[1] "ha"[1]
[2] "hb"[1]
[3] "s2"[3]
[4] "hx"[1]

Switch 8 "s2"
[1] "hc"[1]
[2] "hx"[2]
[3] "s1"[3]

Hca 1 "ha"
[1] "s1"[1]

Hca 1 "hb"
[1] "s1"[2]

Hca 1 "hc"
[1] "s2"[1]

Hca 2 "hx"
[1] "s1"[4]
[2] "s2"[2]
)";

// The fake fabric, plus MADs to deliver first and a stream of bytes that spoils
// the answers it gives.
class InjectingFabric final : public fake::FakeFabric {
 public:
  using FakeFabric::FakeFabric;

  std::deque<mad::IncomingMad> pending;
  std::span<const std::uint8_t> spoiler;

  std::optional<mad::IncomingMad> receive(std::chrono::milliseconds max_wait) override {
    if (!pending.empty()) {
      mad::IncomingMad in = std::move(pending.front());
      pending.pop_front();
      return in;
    }
    auto in = FakeFabric::receive(max_wait);
    if (in && !spoiler.empty()) spoil(*in);
    return in;
  }

 private:
  std::uint8_t take() {
    const std::uint8_t b = spoiler.front();
    spoiler = spoiler.subspan(1);
    return b;
  }
  // One control byte per answer: 0 leaves it alone; else (c & 7) bytes are
  // overwritten with (offset, value) pairs, and with bit 7 the MAD is cut to
  // the next byte's length.
  void spoil(mad::IncomingMad& in) {
    const std::uint8_t c = take();
    for (unsigned i = 0; i < (c & 7u) && spoiler.size() >= 2; ++i) {
      const std::uint8_t at = take();
      const std::uint8_t value = take();
      in.bytes[at] = value;
    }
    if ((c & 0x80u) && !spoiler.empty()) in.length = std::min<std::size_t>(in.length, take());
  }
};

// One SM on one fabric, master after its first sweep. Rebuilt when an input
// leaves it in another state (another SM's SMInfo Set may legitimately stop it).
struct Rig {
  FakeClock clock;
  std::string cache_dir;
  std::unique_ptr<InjectingFabric> fabric;
  std::unique_ptr<sm::SubnetManager> sm;
  sm::ControlFlags control;
  std::vector<mad::Lid> ca_lids, switch_lids;

  Rig() {
    auto desc = testsupport::parse_net(kNet);
    if (!desc.ok()) fuzz::broken(kTarget, "the fabric does not parse: " + desc.error().message);
    std::string tmpl = (std::filesystem::temp_directory_path() / "ibsm-fuzz-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    cache_dir = tmpl;
    conf::Options options;
    options.cache_dir = cache_dir;
    options.dump_files_dir = cache_dir;
    fabric = std::make_unique<InjectingFabric>(*desc, clock);
    sm = std::make_unique<sm::SubnetManager>(*fabric, clock, logger(), options);
    run_for(3s);
    fuzz::expect(sm->state() == mad::SmState::kMaster && fabric->check_routes().empty(), kTarget,
                 "the rig's fabric does not come up");
    for (std::uint32_t i = 0; i < fabric->size(); ++i) {
      const auto& n = fabric->node(i);
      if (n.is_switch())
        switch_lids.push_back(n.ports[0].info.lid);
      else
        ca_lids.push_back(n.ports[1].info.lid);
    }
  }
  ~Rig() {
    std::error_code ec;
    sm.reset();
    std::filesystem::remove_all(cache_dir, ec);
  }

  // IBSM_FUZZ_LOG=FILE keeps the SM's log (debug level) to see why an input failed.
  static Logger logger() {
    const char* file = std::getenv("IBSM_FUZZ_LOG");
    if (file == nullptr) return null_logger();
    LogSettings ls;
    ls.file = file;
    ls.flags = 0xff;
    ls.flush_each = true;
    return make_logger(ls);
  }

  void run_for(Clock::Duration d) {
    const auto until = clock.now() + d;
    while (clock.now() < until)
      if (sm->step(control)) fuzz::broken(kTarget, "the SM's loop returned");
  }
};

std::unique_ptr<Rig>& rig() {
  static std::unique_ptr<Rig> r;
  if (!r || r->sm->state() != mad::SmState::kMaster) {
    r.reset();
    r = std::make_unique<Rig>();
  }
  return r;
}

void unsolicited(Rig& r, std::uint8_t how, std::span<const std::uint8_t> bytes) {
  mad::IncomingMad in;
  in.length = bytes.size();
  std::copy_n(bytes.begin(), std::min<std::size_t>(bytes.size(), 256), in.bytes.begin());
  if (bytes.size() > 256) in.tail.assign(bytes.begin() + 256, bytes.end());
  const mad::Lid lids[4] = {r.ca_lids[(how >> 3) % r.ca_lids.size()],
                            r.switch_lids[(how >> 3) % r.switch_lids.size()],
                            r.fabric->local_port().lid, 0};
  in.slid = lids[(how >> 1) & 3u];
  in.sqpn = (how & 0x40u) ? 0 : 1;
  in.status = (how & 0x80u) ? 110 : 0;  // ETIMEDOUT, as the kernel reports a lost send
  in.from.lid = in.slid;
  in.from.qpn = in.sqpn;
  r.fabric->pending.push_back(std::move(in));
  r.run_for(200ms);
}

void spoiled_sweep(Rig& r, std::span<const std::uint8_t> spoiler) {
  std::atomic<bool> stop{false};
  r.fabric->spoiler = spoiler;
  r.sm->request_heavy_sweep(sm::HeavyReason::kForced);
  (void)r.sm->sweep(stop);
  r.fabric->spoiler = {};
  r.run_for(1s);  // whatever the spoiled sweep left queued
  if (r.sm->state() != mad::SmState::kMaster) return;
  r.sm->request_heavy_sweep(sm::HeavyReason::kForced);
  const sm::SweepResult clean = r.sm->sweep(stop);
  fuzz::expect(clean.subnet_up, kTarget, "a clean sweep after a spoiled one is not SUBNET UP");
  const auto problems = r.fabric->check_routes();
  fuzz::expect(problems.empty(), kTarget,
               "after a clean sweep the routes are broken: " +
                   (problems.empty() ? std::string() : problems.front()));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  Rig& r = *rig();
  const std::span<const std::uint8_t> rest(data + 1, size - 1);
  if (data[0] & 1u)
    spoiled_sweep(r, rest);
  else
    unsolicited(r, data[0], rest);
  return 0;
}
