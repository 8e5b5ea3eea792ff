// The MAD transport seam. The SM sends and receives whole MADs through this
// interface; UmadTransport implements it over libibumad (a real HCA or ibsim's
// umad2sim), FakeTransport (tests/) over an in-memory queue.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "common/result.hpp"
#include "mad/types.hpp"

namespace ibsm::mad {

struct OutgoingMad {
  std::array<std::uint8_t, 256> bytes{};
  Lid dlid = kPermissiveLid;     // DR SMPs always leave with the permissive LID
  std::uint32_t dqpn = 0;        // QP0 for SMPs
  std::uint32_t timeout_ms = 0;  // 0 for responses (nothing to wait for)
};

struct IncomingMad {
  std::array<std::uint8_t, 256> bytes{};
  std::size_t length = 0;
  int status = 0;  // 0, or an errno such as ETIMEDOUT for a send the kernel gave up on
  Lid slid = 0;
  std::uint32_t sqpn = 0;
};

// What the SM needs to know about the port it runs on.
struct LocalPort {
  std::string ca_name;
  int port_num = 0;
  Guid port_guid = 0;
  Guid node_guid = 0;
  Lid lid = 0;
  Lid sm_lid = 0;
  std::uint8_t lmc = 0;
  PortState state = PortState::kDown;
  std::uint8_t phys_state = 0;
};

class MadTransport {
 public:
  virtual ~MadTransport() = default;
  virtual Status send(const OutgoingMad& mad) = 0;
  // Waits up to max_wait for one MAD (response, kernel timeout report or an
  // unsolicited request). nullopt when nothing arrived.
  virtual std::optional<IncomingMad> receive(std::chrono::milliseconds max_wait) = 0;
  virtual LocalPort local_port() const = 0;
};

}  // namespace ibsm::mad
