// A control-socket client for the ctl tests: connects to the Unix socket, sends lines
// and reads framed answers, each read bounded by a 10 s receive timeout so that a
// server that never answers fails the test instead of hanging it.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>

#include <gtest/gtest.h>

namespace ibsm::ctl {

// A loopback TCP port free a moment ago (the kernel picks it), for the console.
inline std::uint16_t free_loopback_port() {
  const int probe = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  std::uint16_t port = 0;
  if (::bind(probe, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 &&
      ::getsockname(probe, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  ::close(probe);
  return port;
}

// A TCP connection to the console on 127.0.0.1:`port`, reads bounded by a 10 s
// receive timeout; -1 when it cannot connect.
inline int connect_loopback(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    ::close(fd);
    return -1;
  }
  timeval tv{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  return fd;
}

class Client {
 public:
  explicit Client(const std::string& path) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::snprintf(a.sun_path, sizeof(a.sun_path), "%s", path.c_str());
    ok_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
    timeval tv{10, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  }
  ~Client() { ::close(fd_); }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;
  bool ok() const { return ok_; }
  void send(std::string_view s) {
    ASSERT_EQ(::send(fd_, s.data(), s.size(), MSG_NOSIGNAL), static_cast<ssize_t>(s.size()));
  }
  // One line (without newline); empty at end of stream or after 10 s.
  std::string line() {
    for (;;) {
      const auto nl = buf_.find('\n');
      if (nl != std::string::npos) {
        std::string l = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return l;
      }
      char tmp[65536];
      const ssize_t n = ::read(fd_, tmp, sizeof(tmp));
      if (n <= 0) return {};
      buf_.append(tmp, static_cast<std::size_t>(n));
    }
  }
  // What one read returns (at most `max` bytes; empty at end of stream or after 10 s).
  std::string read_some(std::size_t max) {
    if (!buf_.empty()) return std::exchange(buf_, {});
    std::string out(max, '\0');
    const ssize_t n = ::read(fd_, out.data(), max);
    out.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    return out;
  }
  // No more requests: the server answers what it got, then closes.
  void shutdown_write() { ::shutdown(fd_, SHUT_WR); }
  // Everything until the server closes (or 10 s pass without a byte).
  std::string rest() {
    std::string out = std::move(buf_);
    buf_.clear();
    char tmp[4096];
    for (;;) {
      const ssize_t n = ::read(fd_, tmp, sizeof(tmp));
      if (n <= 0) return out;
      out.append(tmp, static_cast<std::size_t>(n));
    }
  }
  // One framed answer, the terminator line last.
  std::string answer() {
    std::string out;
    for (;;) {
      const auto nl = buf_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        out += line + "\n";
        if (line == ".ok" || line == ".err") return out;
        continue;
      }
      char tmp[4096];
      const ssize_t n = ::read(fd_, tmp, sizeof(tmp));
      if (n <= 0) return out + "<eof>";
      buf_.append(tmp, static_cast<std::size_t>(n));
    }
  }

 private:
  int fd_ = -1;
  bool ok_ = false;
  std::string buf_;
};

}  // namespace ibsm::ctl
