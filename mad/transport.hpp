// The MAD transport seam. The SM sends and receives whole MADs through this
// interface; UmadTransport implements it over libibumad (a real HCA or ibsim's
// umad2sim), FakeTransport (tests/) over an in-memory queue.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "mad/errors.hpp"
#include "mad/types.hpp"

namespace ibsm::mad {

// QP1's well-known Q_Key: GSI MADs (SA, PerfMgr, CC) carry it (IBA 13.5.3).
inline constexpr std::uint32_t kGsiQKey = 0x80010000;

struct OutgoingMad {
  std::array<std::uint8_t, 256> bytes{};
  Lid dlid = kPermissiveLid;     // DR SMPs always leave with the permissive LID
  std::uint32_t dqpn = 0;        // QP0 for SMPs
  std::uint32_t timeout_ms = 0;  // 0 for responses (nothing to wait for)
};

// Where a GSI MAD (SA, ...) comes from or goes to: the address vector of the
// requester, so a response retraces it (IBA 13.5.4: responses go to the
// requester's QP, LID, SL and P_Key index; a GRH when the request carried one).
struct MadAddress {
  Lid lid = 0;
  std::uint32_t qpn = 1;
  std::uint32_t qkey = kGsiQKey;
  std::uint8_t sl = 0;
  std::uint16_t pkey_index = 0;
  bool grh = false;
  std::array<std::uint8_t, 16> gid{};  // remote GID (requests: source GID)
  std::uint8_t hop_limit = 0;
  std::uint8_t traffic_class = 0;
  std::uint32_t flow_label = 0;
};

struct IncomingMad {
  // The first 256 bytes; a longer (RMPP-reassembled) message keeps the rest in `tail`.
  std::array<std::uint8_t, 256> bytes{};
  std::size_t length = 0;  // the whole message, tail included
  std::vector<std::uint8_t> tail;
  int status = 0;  // 0, or an errno such as ETIMEDOUT for a send the kernel gave up on
  Lid slid = 0;
  std::uint32_t sqpn = 0;
  MadAddress from;  // full address vector of the sender (slid/sqpn repeated there)
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
  // The most SMP requests that may await their answers at once without send()
  // blocking for good; 0 = no such limit. SmpClient never exceeds it, whatever
  // max_wire_smps says.
  virtual unsigned max_unanswered_requests() const { return 0; }

  // GSI classes (SA, class 0x03). Sends one message of any length: on a real
  // kernel a message with the RMPP ACTIVE flag is segmented by the kernel's RMPP
  // (the agent registered with rmpp_version 1). A transport that cannot carry
  // more than one MAD says so in max_gsi_length().
  virtual Status send_gsi(std::span<const std::uint8_t> mad, const MadAddress& to,
                          std::uint32_t timeout_ms) {
    (void)mad;
    (void)to;
    (void)timeout_ms;
    return fail(kErrSendFailed, "this transport carries no GSI MADs");
  }
  // Longest message send_gsi delivers whole (256: no RMPP on this transport).
  virtual std::size_t max_gsi_length() const { return 256; }

  // A GSI class the SM sends requests of (PerfMgt 0x04, Congestion Control 0x21):
  // registers a client agent for it, so its answers reach receive() and send_gsi()
  // takes MADs of that class (it picks the agent by the MAD's class byte). Called
  // before the first request of the class: under umad2sim an answer of a class
  // without an agent kills the process, and a transport may refuse a class (umad2sim
  // mis-dispatches some). A transport that needs no agents (the fakes) accepts.
  virtual Status register_gsi_class(std::uint8_t mgmt_class, std::uint8_t class_version) {
    (void)mgmt_class;
    (void)class_version;
    return {};
  }
};

}  // namespace ibsm::mad
