// SA unit-test rig: a FakeFabric from a net text, an SM swept once on it (so the
// snapshot is exactly what a real sweep publishes), and helpers to send SA
// requests to the SM's SaServer and read its answers from the capturing
// transport. Time is a FakeClock; nothing sleeps.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.hpp"
#include "conf/options.hpp"
#include "sa/sa_mad.hpp"
#include "sa/server.hpp"
#include "sm/subnet_manager.hpp"
#include "tests/fake/fake_fabric.hpp"

namespace ibsm::satest {

// A FakeFabric that also records every GSI send (SA responses, Reports) byte for
// byte, with the address it went to. `gsi_max` 256 models umad2sim; larger models
// a kernel with RMPP.
class CapturingFabric final : public fake::FakeFabric {
 public:
  CapturingFabric(const testsupport::Fabric& d, FakeClock& clock, std::size_t gsi_max)
      : FakeFabric(d, clock), gsi_max_(gsi_max) {}
  struct Sent {
    std::vector<std::uint8_t> bytes;
    mad::MadAddress to;
  };
  Status send_gsi(std::span<const std::uint8_t> mad, const mad::MadAddress& to,
                  std::uint32_t timeout_ms) override;
  std::size_t max_gsi_length() const override { return gsi_max_; }
  std::vector<Sent> sent;

 private:
  std::size_t gsi_max_;
};

// Small hand-drawn fabric used by default: two switches, four single-port CAs,
// one two-port CA (see sa_fixture.cpp).
extern const std::string_view kSmallNet;

class SaRig {
 public:
  explicit SaRig(std::string_view net = kSmallNet, conf::Options options = {},
                 std::size_t gsi_max = 1u << 20);
  ~SaRig();

  // Builds a request (header + record) and hands it to the SA as if it came
  // from `slid`; returns the answer, or nullopt when the SA stayed silent.
  struct Answer {
    sa::SaHeader header;
    std::vector<std::uint8_t> data;   // after the 56-byte header
    std::vector<std::uint8_t> bytes;  // the whole message
    std::size_t record_count() const {
      return header.attr_offset == 0 ? 0 : data.size() / (header.attr_offset * 8u);
    }
    std::span<const std::uint8_t> record(std::size_t i) const {
      const std::size_t size = header.attr_offset * 8u;
      return {data.data() + i * size, size};
    }
  };
  std::optional<Answer> request(std::uint8_t method, std::uint16_t attr_id,
                                std::span<const std::uint8_t> record, std::uint64_t comp_mask,
                                mad::Lid slid, std::uint64_t sm_key = 0,
                                std::uint32_t attr_mod = 0);
  // Feeds raw bytes to the SA (fuzzing, malformed input).
  std::optional<Answer> raw(std::span<const std::uint8_t> bytes, mad::Lid slid);

  mad::Lid lid_of(std::string_view node, mad::PortNum port = 1) const;
  mad::Guid port_guid_of(std::string_view node, mad::PortNum port = 1) const;

  FakeClock clock;
  std::unique_ptr<CapturingFabric> fabric;
  std::unique_ptr<sm::SubnetManager> sm;
  sa::SaServer& sa();
  std::string cache_dir;
  testsupport::Fabric desc;

 private:
  std::uint64_t next_tid_ = 0x1000;
};

}  // namespace ibsm::satest
