// Opening the control server's listeners: the Unix socket ibsm-ctl talks to, and the
// loopback console's TCP port. Neither touches the process's umask (other threads run:
// a umask is process-wide) and neither removes anything but a stale socket.
//
// The Unix socket is bound at its path, then chmod'ed to 0666, then listens. bind()
// creates the file with 0777 less the umask, which never grants more than the 0666
// that follows, and no client can connect before listen(), so there is no moment in
// which the socket is open wider than meant or reachable before its mode is set. bind()
// never replaces a file: another process that puts a socket at the path after the
// stale one was removed makes this bind fail (EADDRINUSE) instead of being replaced.
// (chmod follows the path; only who may write the directory could swap it in between,
// and they could replace the socket anyway: the directory is root's, /run/ibsm.)
#pragma once

#include <cstdint>
#include <string>

#include "common/result.hpp"

namespace ibsm::ctl {

enum class SocketPathState : std::uint8_t {
  kAbsent,     // nothing at the path
  kStale,      // a socket nobody listens on (connect: ECONNREFUSED): safe to remove
  kLive,       // a socket someone answers on (connect succeeds, or EAGAIN: backlog full)
  kNotSocket,  // a file, directory, link...: never removed
  kUnknown,    // cannot tell (lstat or connect failed otherwise): left alone
};

struct SocketPathProbe {
  SocketPathState state = SocketPathState::kAbsent;
  int error = 0;  // errno behind kUnknown
};

// What sits at `path`: lstat (a link is not followed) and S_ISSOCK, then a
// non-blocking connect.
SocketPathProbe probe_socket_path(const std::string& path);

// The listening Unix socket at `path`, mode 0666 (the peer's uid decides what it may
// do: a refused user gets an answer saying why rather than EACCES). A stale socket at
// the path is removed first; anything else there is an error naming it.
// `replaced_stale` is set when one was removed.
Result<int> open_unix_listener(const std::string& path, int backlog, bool* replaced_stale);

// The console's listener on 127.0.0.1:`port`.
Result<int> open_loopback_listener(std::uint16_t port, int backlog);

}  // namespace ibsm::ctl
