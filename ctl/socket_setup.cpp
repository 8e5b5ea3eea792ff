#include "ctl/socket_setup.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <spdlog/fmt/fmt.h>

#include "ctl/errors.hpp"

namespace ibsm::ctl {

namespace {

bool make_unix_address(const std::string& path, sockaddr_un& addr) {
  addr = sockaddr_un{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(addr.sun_path)) return false;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  return true;
}

}  // namespace

SocketPathProbe probe_socket_path(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return {SocketPathState::kAbsent, 0};
    return {SocketPathState::kUnknown, errno};
  }
  if (!S_ISSOCK(st.st_mode)) return {SocketPathState::kNotSocket, 0};
  sockaddr_un addr{};
  if (!make_unix_address(path, addr)) return {SocketPathState::kUnknown, ENAMETOOLONG};
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return {SocketPathState::kUnknown, errno};
  const int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  const int err = errno;
  ::close(fd);
  if (rc == 0) return {SocketPathState::kLive, 0};
  switch (err) {
    case ECONNREFUSED:  // bound by nobody: the process that made it is gone
      return {SocketPathState::kStale, 0};
    case EAGAIN:  // its listener's backlog is full: alive and busy
    case EINPROGRESS:
      return {SocketPathState::kLive, 0};
    case ENOENT:  // removed since lstat
      return {SocketPathState::kAbsent, 0};
    default:
      return {SocketPathState::kUnknown, err};
  }
}

Result<int> open_unix_listener(const std::string& path, int backlog, bool* replaced_stale) {
  if (replaced_stale != nullptr) *replaced_stale = false;
  sockaddr_un addr{};
  if (!make_unix_address(path, addr))
    return fail(kErrSocketSetup, fmt::format("control socket path {} is longer than {} bytes", path,
                                             sizeof(addr.sun_path) - 1));
  const SocketPathProbe probe = probe_socket_path(path);
  switch (probe.state) {
    case SocketPathState::kAbsent:
      break;
    case SocketPathState::kStale:
      if (::unlink(path.c_str()) != 0 && errno != ENOENT)
        return fail(kErrSocketSetup, fmt::format("cannot remove the stale control socket {}: {}",
                                                 path, std::strerror(errno)));
      if (replaced_stale != nullptr) *replaced_stale = true;
      break;
    case SocketPathState::kLive:
      return fail(kErrSocketSetup,
                  fmt::format("another process answers on {} (another ibsm?); it is left alone "
                              "(set ctl_socket)",
                              path));
    case SocketPathState::kNotSocket:
      return fail(kErrSocketSetup,
                  fmt::format("{} exists and is not a socket; it is not removed (remove it, or "
                              "set ctl_socket)",
                              path));
    case SocketPathState::kUnknown:
      return fail(kErrSocketSetup, fmt::format("cannot tell whether {} is in use: {}; it is left "
                                               "alone",
                                               path, std::strerror(probe.error)));
  }
  // The socket is bound and listening under a temporary name beside `path` and then
  // linked to `path`: the name appears only once connects succeed (a client or another
  // ibsm that sees it between bind and listen would get ECONNREFUSED and call it stale),
  // and link(2), unlike rename, never replaces what another process put there meanwhile.
  // A temporary name that does not fit sun_path binds `path` directly.
  const std::string tmp = path + "." + std::to_string(::getpid()) + ".new";
  sockaddr_un tmp_addr{};
  const bool staged = make_unix_address(tmp, tmp_addr);
  const std::string& bound = staged ? tmp : path;
  if (staged) ::unlink(tmp.c_str());  // left by a run with this pid that died here
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return fail(kErrSocketSetup,
                fmt::format("cannot create the control socket: {}", std::strerror(errno)));
  if (::bind(fd, reinterpret_cast<const sockaddr*>(staged ? &tmp_addr : &addr),
             sizeof(sockaddr_un)) != 0) {
    const int err = errno;
    ::close(fd);
    return fail(kErrSocketSetup,
                fmt::format("cannot bind the control socket {}: {}{}", bound, std::strerror(err),
                            err == EADDRINUSE ? " (something was put there meanwhile; it is "
                                                "left alone)"
                                              : ""));
  }
  if (::chmod(bound.c_str(), 0666) != 0 || ::listen(fd, backlog) != 0) {
    const int err = errno;
    ::close(fd);
    ::unlink(bound.c_str());  // ours: bound a moment ago
    return fail(kErrSocketSetup,
                fmt::format("cannot open the control socket {}: {}", path, std::strerror(err)));
  }
  if (staged) {
    const int rc = ::link(tmp.c_str(), path.c_str());
    const int err = errno;
    ::unlink(tmp.c_str());
    if (rc != 0) {
      ::close(fd);
      return fail(kErrSocketSetup,
                  fmt::format("cannot open the control socket {}: {}{}", path, std::strerror(err),
                              err == EEXIST ? " (something was put there meanwhile; it is left "
                                              "alone)"
                                            : ""));
    }
  }
  return fd;
}

Result<int> open_loopback_listener(std::uint16_t port, int backlog) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return fail(kErrSocketSetup, fmt::format("cannot create the loopback console's socket: {}",
                                             std::strerror(errno)));
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 || ::listen(fd, backlog) != 0) {
    const int err = errno;
    ::close(fd);
    return fail(kErrSocketSetup, fmt::format("cannot open the loopback console on 127.0.0.1:{}: {}",
                                             port, std::strerror(err)));
  }
  return fd;
}

}  // namespace ibsm::ctl
