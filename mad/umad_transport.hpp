// MadTransport over libibumad: the SM's real wire, also what ibsim's umad2sim
// intercepts. Opens the port, registers as the SMI agent for directed-route and
// LID-routed SMPs and raises the port's IsSM capability bit (open of issmN).
#pragma once

#include <array>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "mad/transport.hpp"
#include "mad/umad_api.hpp"

namespace ibsm::mad {

class UmadTransport final : public MadTransport {
 public:
  // Opens the local port whose GUID is port_guid, or when 0 the first InfiniBand port
  // whose physical link is up (OpenSM's default), else the first InfiniBand port.
  // Each refusal is one error naming the step, the device and port, the errno and
  // the likely cause (IBSM-1011..1015); `api` is libibumad, or a test's fake.
  static Result<std::unique_ptr<UmadTransport>> open(Guid port_guid);
  static Result<std::unique_ptr<UmadTransport>> open(Guid port_guid, UmadApi& api);
  ~UmadTransport() override;

  UmadTransport(const UmadTransport&) = delete;
  UmadTransport& operator=(const UmadTransport&) = delete;

  Status send(const OutgoingMad& mad) override;
  std::optional<IncomingMad> receive(std::chrono::milliseconds max_wait) override;
  LocalPort local_port() const override;
  unsigned max_unanswered_requests() const override { return max_unanswered_; }
  Status send_gsi(std::span<const std::uint8_t> mad, const MadAddress& to,
                  std::uint32_t timeout_ms) override;
  std::size_t max_gsi_length() const override { return gsi_max_length_; }
  Status register_gsi_class(std::uint8_t mgmt_class, std::uint8_t class_version) override;
  // How the SA agent was registered ("kernel RMPP", or why single MADs only), for the log.
  const std::string& gsi_status() const { return gsi_status_; }
  // What became of the IsSM request ("issm0 held", or why not), for the log.
  const std::string& issm_status() const { return issm_status_; }
  // Whether the kernel refused IsSM and the SM runs without it (a warning, IBSM-1014).
  bool issm_refused() const { return issm_refused_; }

 private:
  UmadTransport() = default;
  UmadApi* api_ = nullptr;
  LocalPort port_;
  int fd_ = -1;
  int issm_fd_ = -1;
  std::string issm_status_;
  bool issm_refused_ = false;
  int agent_dr_ = -1;
  int agent_lid_ = -1;
  int agent_sa_ = -1;
  // Client agents of register_gsi_class, by class (-1 = none).
  std::array<int, 256> agent_by_class_ = [] {
    std::array<int, 256> a{};
    a.fill(-1);
    return a;
  }();
  bool simulated_ = false;  // umad2sim (ibsim) stands in for the kernel
  std::size_t gsi_max_length_ = 256;
  unsigned max_unanswered_ = 0;
  std::string gsi_status_;
  std::vector<std::uint8_t> send_buf_;
  std::vector<std::uint8_t> recv_buf_;
};

// Why umad2sim cannot carry a class (empty: it can). ibsim's process_packet hands a
// request to its SMP/PerfMgt handlers by (class & 0xf) and copies no data for a class
// other than 0x01, 0x81 and 0x04; so a Congestion Control (0x21) Set would be applied
// as the SMP attribute of the same ID (0x16 CACongestionSetting as a P_KeyTable Set)
// with uninitialised data. Other classes are merely dropped ("no one to handle pkt").
std::string umad2sim_refuses_class(std::uint8_t mgmt_class);

// Local ports libibumad can see (for -g validation and error messages).
std::vector<LocalPort> list_local_ports();

// Whether a subnet manager can run on the port: any link layer but Ethernet (a RoCE
// port has a umad device too; ibsim names InfiniBand "IB").
bool usable_sm_port(const UmadPort& p);

// The methods an agent takes, as umad_register's 128-bit mask (bit m = method m).
using MethodMask = std::array<long, 16 / sizeof(long)>;
MethodMask method_mask(std::initializer_list<unsigned> methods);
// The SA agent's methods, as OpenSM registers them: Get, Set, GetTable, GetMulti, Delete.
MethodMask sa_agent_method_mask();

// The longest GSI message a kernel-RMPP agent hands to one umad_send.
inline constexpr std::size_t kRmppMaxLength = std::size_t{1} << 20;

// How the SA's GSI agent ended up registered.
struct SaAgentRegistration {
  int agent = -1;  // < 0: no agent
  int rmpp_version = 0;
  std::size_t max_length = 256;  // what send_gsi may carry in one message
  std::string status;            // for the log
};

// Registers the SA agent through `reg(rmpp_version)` (umad_register in production;
// pure otherwise, so the choice is testable without a port). On a real kernel
// rmpp_version 1, so a GetTableResp of any size is one send; when the kernel refuses
// it, rmpp_version 0 and single MADs. Under ibsim's umad2sim (`simulated`), which
// carries one 256-byte MAD and no RMPP whatever the registration says, rmpp_version
// 0 and single MADs from the start.
SaAgentRegistration register_sa_agent(bool simulated, const std::function<int(int)>& reg);

}  // namespace ibsm::mad
