// The control socket: ibsm-ctl's Unix socket, and OpenSM's console (`console local`
// on the terminal, `console loopback` on 127.0.0.1:console_port). One thread runs a
// poll loop over every connection; read-only commands are answered there from the
// published OpsSnapshot, changing ones go to the SM's thread through the ControlQueue
// and are answered when it calls back. Nothing here can stall the SM: the SM never
// waits for this thread, and this thread never waits for a client.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/error.hpp"
#include "common/log.hpp"
#include "common/result.hpp"
#include "ctl/command.hpp"
#include "ctl/reports.hpp"
#include "sm/ops/ops.hpp"

namespace ibsm::ctl {

struct ServerSettings {
  std::string socket_path;      // Unix socket; empty: none
  std::string group;            // members may run read-only commands; empty: root only
  std::string console = "off";  // off | local | loopback
  std::uint16_t console_port = 10000;
  std::chrono::milliseconds idle_timeout{30000};
  std::size_t max_connections = 256;
  std::size_t follow_queue = 4096;       // events a follower may fall behind by
  std::size_t max_output = 1024 * 1024;  // bytes queued for one client before it is cut off
  std::chrono::milliseconds status_loop{5000};
};

// Who is at the other end, and what they may do.
struct Peer {
  std::uint32_t uid = 0;
  bool may_read = false;
  bool may_change = false;
  std::string describe;  // "uid 0 (pid 1234)" for the log
};

// The access rule (pure): root and ibsm's own user may do anything; members of the
// configured group may read. `groups` are the peer's primary and supplementary gids.
Peer decide_access(std::uint32_t uid, const std::vector<std::uint32_t>& groups,
                   std::uint32_t own_uid, std::optional<std::uint32_t> ctl_gid);

class ControlServer {
 public:
  ControlServer(sm::ops::Ops& ops, Logger log, ServerSettings settings);
  ~ControlServer();
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  // Opens the socket(s) and starts the thread. Errors are logged with their ID; the
  // SM runs on without what could not be opened.
  void start();
  void stop();
  std::size_t connections() const { return connection_count_.load(); }

 private:
  struct Conn;
  void loop();
  void accept_unix();
  void accept_tcp();
  void add_conn(int fd, int kind, Peer peer);
  void on_readable(Conn& c);
  void on_line(Conn& c, std::string_view line);
  void send_answer(Conn& c, const Command* cmd, std::string_view name, const Answer& a);
  void send_raw(Conn& c, std::string_view text);
  void flush(Conn& c);
  void pump_events(Conn& c);
  void take_replies();
  void wake();
  void close_conn(Conn& c);
  void submit(Conn& c, const Command& cmd, std::string_view line);

  sm::ops::Ops& ops_;
  Logger log_;
  ServerSettings settings_;
  std::optional<std::uint32_t> ctl_gid_;
  int unix_fd_ = -1;
  int tcp_fd_ = -1;
  int wake_fd_ = -1;
  bool local_console_ = false;
  std::atomic<bool> stop_{false};
  std::atomic<bool> wake_pending_{false};
  std::atomic<std::size_t> connection_count_{0};
  std::thread thread_;
  std::map<std::uint64_t, std::unique_ptr<Conn>> conns_;
  std::uint64_t next_id_ = 1;

  struct Reply {
    std::uint64_t conn;
    bool json;
    std::string name;
    sm::ops::ControlReply reply;
  };
  std::mutex replies_mu_;
  std::vector<Reply> replies_;
};

}  // namespace ibsm::ctl
