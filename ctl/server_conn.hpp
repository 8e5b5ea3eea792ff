// One control connection as the server's socket thread keeps it: what was read and
// not yet taken, what waits for the client, its request in flight, the events it
// follows. Internal to the control server (server*.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common/clock.hpp"
#include "ctl/access_policy.hpp"
#include "ctl/command.hpp"
#include "ctl/outbox.hpp"
#include "ctl/server.hpp"
#include "ops/event_bus.hpp"

namespace ibsm::ctl {

// How the connection came: ibsm-ctl's Unix socket (framed answers), the loopback
// console, the local console (the terminal).
enum ConnKind : int { kUnix = 0, kTcp = 1, kLocal = 2 };

// Lines wait in a connection's buffer while its request is in flight; beyond this much
// the client is not read (the socket's buffers push back on it).
inline constexpr std::size_t kMaxUnread = kMaxLine + 64 * 1024;

// The most one write to a client's socket is given.
inline constexpr std::size_t kSendStep = 256 * 1024;

struct ControlServer::Conn {
  std::uint64_t id = 0;
  int fd = -1;
  int kind = kUnix;
  Peer peer;
  std::string in;  // bytes read; in[0, in_used) are taken
  std::size_t in_used = 0;
  bool discarding = false;  // inside a line longer than kMaxLine
  bool eof = false;         // the peer sent all it will: answer that, then close
  Outbox out;               // what the client has not read yet
  Clock::TimePoint last_line;
  bool in_flight = false;  // a request at a worker or at the SM: later lines wait
  std::shared_ptr<ops::Subscription> follow;
  bool follow_json = false;
  bool loop_json = false;
  std::optional<Clock::TimePoint> next_loop;
  bool closing = false;  // close once `out` is written
  bool framed() const { return kind == kUnix; }
  std::size_t unread() const { return in.size() - in_used; }
};

}  // namespace ibsm::ctl
