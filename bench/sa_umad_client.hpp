// What the benchmark clients (sa_load, sa_joins, mft_watch) share: big-endian field
// access, an agent of one class on the first local port (the SA's: class 0x03, sends to
// the SM's LID on QP1) and the GUID list file. libibumad only, like the tools they measure.
#pragma once

#include <endian.h>
#include <errno.h>
#include <infiniband/umad.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace ibsm::bench {

inline constexpr int kClassSa = 0x03;
inline constexpr int kClassVersion = 2;
inline constexpr std::size_t kMadSize = 256;
inline constexpr std::size_t kHeader = 56;
inline constexpr std::uint32_t kQkeyGsi = 0x80010000;

inline void put16(std::uint8_t* p, std::uint16_t v) {
  p[0] = static_cast<std::uint8_t>(v >> 8);
  p[1] = static_cast<std::uint8_t>(v);
}
inline void put64(std::uint8_t* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i)
    p[i] = static_cast<std::uint8_t>(v >> (56 - 8 * i));
}
inline std::uint16_t get16(const std::uint8_t* p) {
  return static_cast<std::uint16_t>(p[0] << 8 | p[1]);
}
inline std::uint64_t get64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v = v << 8 | p[i];
  return v;
}

[[noreturn]] inline void die(const char* what) {
  std::fprintf(stderr, "%s: %s\n", program_invocation_short_name, what);
  std::exit(2);
}

// One agent of one management class on the first local port.
class UmadPort {
 public:
  UmadPort(int mgmt_class, int class_version, int rmpp_version) {
    if (umad_init() < 0) die("umad_init failed");
    if (umad_get_port(nullptr, 0, &port_) < 0) die("umad_get_port failed");
    fd_ = umad_open_port(port_.ca_name, port_.portnum);
    if (fd_ < 0) die("umad_open_port failed");
    agent_ = umad_register(fd_, mgmt_class, class_version, static_cast<std::uint8_t>(rmpp_version),
                           nullptr);
    if (agent_ < 0) die("umad_register failed");
    usize_ = umad_size();
    send_buf_.resize(usize_ + kMadSize);
    recv_buf_.resize(usize_ + 65536);
  }
  ~UmadPort() {
    umad_close_port(fd_);
    umad_release_port(&port_);
    umad_done();
  }
  UmadPort(const UmadPort&) = delete;
  UmadPort& operator=(const UmadPort&) = delete;

  std::uint16_t sm_lid() const { return static_cast<std::uint16_t>(port_.sm_lid); }
  std::uint64_t gid_prefix() const { return be64toh(port_.gid_prefix); }

  // The MAD part of the send buffer (256 bytes, zeroed).
  std::uint8_t* fresh_mad() {
    std::fill(send_buf_.begin(), send_buf_.end(), 0);
    return static_cast<std::uint8_t*>(umad_get_mad(send_buf_.data()));
  }
  // Sends the buffer's MAD to LID `dlid`, QP `qpn` (0: an SMP, LID-routed).
  bool send_to(std::uint16_t dlid, int qpn, std::uint32_t qkey, int timeout_ms = 0) {
    umad_set_addr(send_buf_.data(), dlid, qpn, 0, static_cast<int>(qkey));
    return umad_send(fd_, agent_, send_buf_.data(), static_cast<int>(kMadSize), timeout_ms, 0) >= 0;
  }
  // One MAD or nullptr after timeout_ms; `len` gets its length.
  const std::uint8_t* recv(int timeout_ms, int& len) {
    len = 65536;
    const int r = umad_recv(fd_, recv_buf_.data(), &len, timeout_ms);
    if (r < 0) return nullptr;
    return static_cast<const std::uint8_t*>(umad_get_mad(recv_buf_.data()));
  }

 private:
  umad_port_t port_{};
  int fd_ = -1;
  int agent_ = -1;
  std::size_t usize_ = 0;
  std::vector<std::uint8_t> send_buf_;
  std::vector<std::uint8_t> recv_buf_;
};

// The SA class's agent, sending to the SM's LID on QP1.
class SaPort : public UmadPort {
 public:
  SaPort() : UmadPort(kClassSa, kClassVersion, 1) {}
  bool send(int timeout_ms = 0) { return send_to(sm_lid(), 1, kQkeyGsi, timeout_ms); }
};

inline std::vector<std::uint64_t> read_guids(const std::string& path) {
  std::ifstream in(path);
  if (!in) die("cannot read the GUID file");
  std::vector<std::uint64_t> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    out.push_back(std::strtoull(line.c_str(), nullptr, 0));
  }
  return out;
}

}  // namespace ibsm::bench
