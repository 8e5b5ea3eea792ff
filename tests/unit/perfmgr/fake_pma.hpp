// FakePmaFabric: the performance management agents of a small fabric behind the
// MadTransport seam, for the PerfMgr's unit tests. Each LID holds one PMA (a CA
// port, or a switch answering for all its ports) with counters a test sets and
// raises; answers arrive `latency` after the query on the FakeClock. Faults: silent
// PMAs, error statuses, truncated/oversized answers, wrong attributes, redirection.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "common/clock.hpp"
#include "mad/transport.hpp"
#include "perfmgr/attributes.hpp"

namespace ibsm::perfmgr::test {

// One port's counters as the device holds them (saturating at their widths).
struct FakeCounters {
  PortCounters pc;
  PortCountersExtended pce;
};

enum class PmaFault : std::uint8_t {
  kNone,
  kSilent,
  kBadStatus,
  kTruncated,
  kOversized,
  kWrongAttr,
  kWrongPort
};

struct FakePma {
  std::uint16_t cap_mask = kCapExtendedWidth | kCapXmitWait;
  std::map<unsigned, FakeCounters> ports;  // port number -> counters
  PmaFault fault = PmaFault::kNone;
  std::optional<ClassPortInfo> redirect;  // ClassPortInfo answers carry status 0x0002 and this
  std::uint32_t qp = 1;                   // the QP this PMA listens on
};

class FakePmaFabric : public mad::MadTransport {
 public:
  explicit FakePmaFabric(FakeClock& clock) : clock_(clock) {}

  FakePma& pma(mad::Lid lid, std::uint32_t qp = 1) { return pmas_[{lid, qp}]; }
  void remove(mad::Lid lid) { pmas_.erase({lid, 1}); }

  // MadTransport.
  Status send(const mad::OutgoingMad&) override {
    return fail(mad::kErrSendFailed, "FakePmaFabric carries no SMPs");
  }
  std::optional<mad::IncomingMad> receive(std::chrono::milliseconds max_wait) override;
  mad::LocalPort local_port() const override { return {}; }
  Status send_gsi(std::span<const std::uint8_t> mad, const mad::MadAddress& to,
                  std::uint32_t timeout_ms) override;

  std::chrono::milliseconds latency{1};
  unsigned limit = 0;  // max_unanswered_requests
  unsigned max_unanswered_requests() const override { return limit; }

  // What was sent.
  struct Sent {
    mad::Lid lid;
    std::uint32_t qp;
    std::uint8_t method;
    std::uint16_t attr;
    unsigned port;
    std::uint16_t counter_select;
    std::uint32_t tid = 0;  // low 32 bits
  };
  std::vector<Sent> sent;
  std::size_t count(std::uint16_t attr, std::uint8_t method = kMethodGet) const;
  // A MAD from elsewhere (a forger), delivered at once: ahead of answers still due.
  void inject(const mad::IncomingMad& in) { inbox_.emplace(clock_.now(), in); }

 private:
  FakeClock& clock_;
  std::map<std::pair<mad::Lid, std::uint32_t>, FakePma> pmas_;
  std::multimap<Clock::TimePoint, mad::IncomingMad> inbox_;
};

}  // namespace ibsm::perfmgr::test
