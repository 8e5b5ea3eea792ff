#include "agent/ping_responder.hpp"

#include <arpa/inet.h>
#include <infiniband/umad.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "agent/errors.hpp"
#include "agent/ibping_mad.hpp"

namespace ibsm::agent {

UmadPingResponder::~UmadPingResponder() {
  for (int g : guards_)
    umad_unregister(fd_, g);
  if (agent_ >= 0) umad_unregister(fd_, agent_);
  if (fd_ >= 0) umad_close_port(fd_);
}

Status UmadPingResponder::open(const std::string& device, int port) {
  where_ = (device.empty() ? std::string("the default device") : device) + " port " +
           std::to_string(port);
  if (umad_init() < 0) return fail(kPingResponderFailed, "umad_init failed (is ib_umad loaded?)");
  fd_ = umad_open_port(device.empty() ? nullptr : device.c_str(), port);
  if (fd_ < 0)
    return fail(kPingResponderFailed, where_ + ": umad_open_port failed: " + std::strerror(-fd_));
  // Client-only agents (no methods: no request is ever delivered to them by a kernel) for
  // the SMP classes. umad2sim delivers by class alone and crashes a process receiving a
  // class it has not registered; a simulated responder needs ibsim's IsSM flag to be sent
  // requests at all, which makes the SM query it with SMInfo. Failing is harmless.
  for (int smp_class : {0x01, 0x81}) {
    long none[16 / sizeof(long)] = {};
    int guard = umad_register(fd_, smp_class, 1, 0, none);
    if (guard >= 0) guards_.push_back(guard);
  }
  // Server: requests of method Get (bit 1 of the mask) for class 0x32 and the OUI.
  long methods[16 / sizeof(long)] = {};
  methods[0] = 1L << 1;
  std::uint8_t oui[3] = {kOpenIbOui[0], kOpenIbOui[1], kOpenIbOui[2]};
  agent_ = umad_register_oui(fd_, kIbpingClass, 0, oui, methods);
  if (agent_ < 0)
    return fail(kPingResponderFailed,
                where_ + ": cannot register vendor class 0x32 (OUI 0x001405): " +
                    std::strerror(errno) + " (is `ibping -S` already serving this port?)");
  return {};
}

Status UmadPingResponder::serve(const std::string& host, const std::atomic<bool>& stop, int tick_ms,
                                const std::function<void(unsigned)>& answered) {
  const std::size_t hdr = umad_size();
  std::vector<std::uint8_t> recv(hdr + kMadSize), send(hdr + kMadSize);
  while (!stop.load()) {
    int len = static_cast<int>(kMadSize);
    std::fill(recv.begin(), recv.end(), 0);
    if (umad_recv(fd_, recv.data(), &len, tick_ms) < 0) continue;  // tick, or EINTR
    if (umad_status(recv.data()) != 0) continue;                   // a send of ours that timed out
    const auto mad = std::span<const std::uint8_t>(recv).subspan(
        hdr, std::min<std::size_t>(static_cast<std::size_t>(std::max(len, 0)), kMadSize));
    if (!is_ibping_request(mad)) continue;
    // Back the way it came: the requester's LID, QP, Q_Key, SL, P_Key index and GRH.
    ib_mad_addr_t from = *umad_get_mad_addr(recv.data());
    const Mad reply = ibping_reply(mad, host);
    std::fill(send.begin(), send.end(), 0);
    std::copy(reply.begin(), reply.end(), send.begin() + static_cast<std::ptrdiff_t>(hdr));
    const std::uint32_t qkey = ntohl(from.qkey);
    umad_set_addr(send.data(), ntohs(from.lid), static_cast<int>(ntohl(from.qpn)), from.sl,
                  static_cast<int>(qkey ? qkey : 0x80010000));
    umad_set_pkey(send.data(), from.pkey_index);
    if (from.grh_present) {
      ib_mad_addr_t grh = from;  // umad_set_grh takes the flow label in host order
      grh.flow_label = static_cast<__be32>(ntohl(from.flow_label));
      umad_set_grh(send.data(), &grh);
    }
    if (umad_send(fd_, agent_, send.data(), static_cast<int>(kMadSize), 0, 0) < 0)
      return fail(kPingResponderFailed, where_ + ": umad_send failed: " + std::strerror(errno));
    if (answered) answered(ntohs(from.lid));
  }
  return {};
}

}  // namespace ibsm::agent
