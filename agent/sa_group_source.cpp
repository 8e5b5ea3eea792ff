#include "agent/sa_group_source.hpp"

#include <arpa/inet.h>
#include <infiniband/umad.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <random>
#include <span>
#include <vector>

#include "agent/errors.hpp"
#include "agent/sa_mcmember.hpp"

namespace ibsm::agent {
namespace {

std::string where(const std::string& device, int port) {
  return device + "/" + std::to_string(port);
}

}  // namespace

UmadGroupMtuSource::~UmadGroupMtuSource() {
  for (auto& [key, p] : ports_) {
    if (p.agent >= 0) umad_unregister(p.fd, p.agent);
    if (p.fd >= 0) umad_close_port(p.fd);
  }
}

Result<UmadGroupMtuSource::OpenPort> UmadGroupMtuSource::open(const std::string& device, int port) {
  auto key = std::make_pair(device, port);
  if (auto it = ports_.find(key); it != ports_.end()) return it->second;
  if (umad_init() < 0)
    return fail(kGroupMtuNoAnswer, where(device, port) + ": umad_init failed (is ib_umad loaded?)");
  OpenPort p;
  p.fd = umad_open_port(device.c_str(), port);
  if (p.fd < 0)
    return fail(kGroupMtuNoAnswer,
                where(device, port) + ": umad_open_port failed: " + std::strerror(-p.fd));
  // Client only (no method mask: we receive nothing but answers to our own requests);
  // a single-MAD Get needs no RMPP.
  p.agent = umad_register(p.fd, kClassSubnAdm, kSaClassVersion, 0, nullptr);
  if (p.agent < 0) {
    umad_close_port(p.fd);
    return fail(kGroupMtuNoAnswer, where(device, port) + ": umad_register(SubnAdm) failed");
  }
  if (next_tid_ == 0) next_tid_ = std::random_device{}() | 1;
  ports_.emplace(key, p);
  return p;
}

Result<std::vector<std::uint8_t>> UmadGroupMtuSource::ask(
    const std::string& device, int port, const std::string& what,
    const std::function<SaMad(std::uint32_t)>& encode) {
  if (auto s = silent_.find({device, port}); s != silent_.end())
    return fail(kGroupMtuNoAnswer, what + ": not asked again: " + s->second);
  // The SM's LID and SL as the port caches them (PortInfo.MasterSMLID/MasterSMSL).
  umad_port_t up{};
  if (umad_get_port(device.c_str(), port, &up) < 0)
    return fail(kGroupMtuNoAnswer, what + ": umad_get_port failed");
  const unsigned state = up.state, sm_lid = up.sm_lid, sm_sl = up.sm_sl;
  umad_release_port(&up);
  if (state != 4 || sm_lid == 0)
    return fail(kGroupMtuNoAnswer, what + ": port not ACTIVE or no SM LID yet (pending SM)");
  auto open_port = open(device, port);
  if (!open_port) return fail(open_port.error());

  const std::size_t hdr = umad_size();
  std::vector<std::uint8_t> send(hdr + kSaMadSize), recv(hdr + kSaMadSize);
  const int attempts = 1 + timing_.retries;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    const std::uint32_t tid = next_tid_++;
    const SaMad mad = encode(tid);
    std::fill(send.begin(), send.end(), 0);
    std::copy(mad.begin(), mad.end(), send.begin() + static_cast<std::ptrdiff_t>(hdr));
    umad_set_addr(send.data(), static_cast<int>(sm_lid), 1, static_cast<int>(sm_sl),
                  static_cast<int>(kQp1QKey));
    umad_set_pkey(send.data(), 0);  // the default partition, which the SM always shares
    const auto deadline_ms = static_cast<int>(timing_.deadline.count());
    // The kernel delivers a response only while its request is outstanding: give the
    // send the same deadline as our wait.
    if (umad_send(open_port->fd, open_port->agent, send.data(), static_cast<int>(kSaMadSize),
                  deadline_ms, 0) < 0)
      return fail(kGroupMtuNoAnswer, what + ": umad_send failed: " + std::strerror(errno));
    const auto end = std::chrono::steady_clock::now() + timing_.deadline;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          end - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;
      int len = static_cast<int>(kSaMadSize);
      if (umad_recv(open_port->fd, recv.data(), &len, static_cast<int>(left.count())) < 0)
        break;  // timed out (or the port went away): next attempt
      const auto got = std::span<const std::uint8_t>(recv).subspan(
          hdr, std::min<std::size_t>(static_cast<std::size_t>(std::max(len, 0)), kSaMadSize));
      // A non-zero status is the kernel reporting that one of our sends timed out (header
      // only, no TID: it may be an earlier attempt's), so our own deadline decides.
      if (umad_status(recv.data()) != 0) continue;
      // Only the answer to this request, from the SM asked: anything else (a late answer
      // to an earlier attempt, a forged one) is dropped and the wait goes on.
      const ib_mad_addr_t* from = umad_get_mad_addr(recv.data());
      const auto from_lid = static_cast<std::uint16_t>(from ? ntohs(from->lid) : 0);
      if (const char* why =
              answer_mismatch(got, from_lid, mad, static_cast<std::uint16_t>(sm_lid))) {
        note_drop(what, why, from_lid);
        continue;
      }
      return std::vector<std::uint8_t>(got.begin(), got.end());
    }
  }
  const std::string silence = "no answer from the SA at LID " + std::to_string(sm_lid) +
                              " within " + std::to_string(timing_.deadline.count()) + " ms, " +
                              std::to_string(attempts) + " attempts";
  silent_[{device, port}] = silence;
  return fail(kGroupMtuNoAnswer, what + ": " + silence);
}

void UmadGroupMtuSource::note_drop(const std::string& what, const char* why, unsigned from_lid) {
  ++dropped_;
  if (!log_ || !drop_log_.allow(std::chrono::steady_clock::now())) return;
  const std::uint64_t unlogged = drop_log_.suppressed();
  *log_ << "warning "
        << to_string(Error{kMadAnswerMismatch, what + ": dropped an answer from LID " +
                                                   std::to_string(from_lid) + ": " + why})
        << (unlogged ? " (and " + std::to_string(unlogged) + " more since)" : "") << "\n";
}

Result<BroadcastGroup> UmadGroupMtuSource::broadcast_group(const std::string& device, int port,
                                                           std::uint16_t pkey) {
  const Mgid mgid = ipoib_broadcast_mgid(pkey);
  auto answer = ask(device, port, where(device, port) + ": broadcast group " + format_mgid(mgid),
                    [&](std::uint32_t tid) { return encode_broadcast_group_get(mgid, tid); });
  if (!answer) return fail(answer.error());
  auto group = decode_broadcast_group(*answer, mgid);
  if (!group) return fail(kGroupMtuRejected, where(device, port) + ": " + group.error().message);
  return *group;
}

Result<int> UmadGroupMtuSource::port_mtu(const std::string& device, int port, unsigned lid) {
  const auto l = static_cast<std::uint16_t>(lid);
  auto answer =
      ask(device, port, where(device, port) + ": PortInfoRecord of LID " + std::to_string(lid),
          [&](std::uint32_t tid) { return encode_port_info_get(l, tid); });
  if (!answer) return fail(answer.error());
  auto mtu = decode_port_neighbor_mtu(*answer, l);
  if (!mtu) return fail(kGroupMtuRejected, where(device, port) + ": " + mtu.error().message);
  return *mtu;
}

}  // namespace ibsm::agent
