// The control socket: ibsm-ctl's Unix socket, and OpenSM's console (`console local`
// on the terminal, `console loopback` on 127.0.0.1:console_port).
//
// Threads: one socket thread runs a poll loop over every connection (accepting,
// reading, splitting lines, checking access, writing), and never computes an answer
// itself. Answers are computed by a bounded pool of workers (ctl/worker_pool.hpp): a
// read-only command from the published OpsSnapshot, the text of a PerfMgr dump from the
// counter snapshot the SM handed over (ControlReply::finish). Changing commands go to
// the SM's thread through the ControlQueue and are answered when it calls back. Each
// connection has at most one request in flight, and its answers come in the order it
// asked; another client's request runs beside it on another worker. Nothing here can
// stall the SM: the SM never waits for these threads, and they never wait for a client.
//
// ControlServer's methods are in server.cpp (its life and the poll loop),
// server_connections.cpp (accept, read, write, close), server_dispatch.cpp (requests to
// a worker or the SM's thread, answers back) and server_access.cpp (refusals, the
// console's auth line and token); server_conn.hpp is the connection they share.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "common/result.hpp"
#include "ctl/access_policy.hpp"
#include "ctl/answer_wire.hpp"
#include "ctl/command.hpp"
#include "ctl/refusal_log.hpp"
#include "ctl/reports/reports.hpp"
#include "ctl/worker_pool.hpp"
#include "ops/ops.hpp"

namespace ibsm::ctl {

struct ServerSettings {
  std::string socket_path;      // Unix socket; empty: none
  std::string group;            // members may run read-only commands; empty: root only
  std::string console = "off";  // off | local | loopback
  std::uint16_t console_port = 10000;
  std::chrono::milliseconds idle_timeout{30000};  // ctl_idle_timeout
  std::size_t max_connections = 256;              // ctl_max_connections
  std::size_t workers = 2;                        // started with the server
  std::size_t max_workers = 16;                   // started on demand, when all are busy
  std::size_t follow_queue = 4096;                // events a follower may fall behind by
  // Bytes that may wait for one client beyond the answer it is being sent (prompts,
  // events) before it is cut off; one answer of any size goes to a client that takes it,
  // and a client that takes nothing for idle_timeout is cut off.
  std::size_t max_output = 1024 * 1024;
  std::chrono::milliseconds status_loop{5000};
  // The loopback console's token file (console_token_file); empty: beside socket_path
  // (console_token_path_for), or in /run/ibsm without a socket.
  std::string console_token_path;
};

// Where the console token goes when console_token_file is empty: the control socket's
// path with .console-token for .sock, else /run/ibsm/console-PORT.token.
std::string console_token_path_for(const ServerSettings& s);

class ControlServer {
 public:
  ControlServer(ops::Ops& ops, Logger log, ServerSettings settings);
  // `clock` times the idle timeout and `status loop` (tests drive it).
  ControlServer(ops::Ops& ops, Logger log, ServerSettings settings, const Clock& clock);
  ~ControlServer();
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  // Opens the socket(s) and starts the thread. Errors are logged with their ID; the
  // SM runs on without what could not be opened.
  void start();
  void stop();
  std::size_t connections() const { return connection_count_.load(); }
  std::size_t workers() const { return workers_.threads(); }
  // Bytes waiting for clients that have not taken them yet, all connections together.
  std::size_t output_waiting() const { return output_waiting_.load(); }
  // CPU time of the socket thread and the workers so far (benchmarks).
  double cpu_seconds() const;

 private:
  struct Conn;
  void loop();
  void accept_unix();
  void accept_tcp();
  bool refuse_over_cap(int fd, int kind);
  void accept_failed();
  void add_conn(int fd, int kind, Peer peer);
  // Logs one refusal through the rate limit (`line` is the full log line).
  void log_refusal(const std::string& peer, const std::string& line);
  void log_refusal_summary(Clock::TimePoint now);
  bool on_auth_line(Conn& c, std::string_view line);
  void serve_conn_input(Conn& c);
  void open_console_token();
  void read_input(Conn& c);
  void parse_input(Conn& c);
  void on_line(Conn& c, std::string_view line);
  void send_answer(Conn& c, const Command* cmd, std::string_view name, Answer a);
  void send_wire(Conn& c, AnswerWire wire);
  void send_raw(Conn& c, std::string_view text);
  void flush(Conn& c);
  void cut_off_if_stuck(Conn& c, Clock::TimePoint now);
  void pump_events(Conn& c);
  void take_replies();
  void take_results();
  void wake();
  void close_conn(Conn& c);
  void submit(Conn& c, const Command& cmd, std::string_view line);
  // Computes an answer on a worker and writes it as the connection's protocol wants; the
  // connection reads no further request until it is written. A connection that left
  // meanwhile gets nothing, but the work is done (dump_counters' file is written).
  void run_on_worker(std::uint64_t conn, bool framed, bool json, std::string name,
                     std::function<Answer()> compute);
  void housekeep(Clock::TimePoint now);

  ops::Ops& ops_;
  Logger log_;
  ServerSettings settings_;
  SteadyClock steady_;
  const Clock& clock_;
  std::optional<std::uint32_t> ctl_gid_;
  int unix_fd_ = -1;
  int tcp_fd_ = -1;
  int wake_fd_ = -1;
  bool local_console_ = false;
  std::string console_token_;       // empty: no changing command on the loopback console
  std::string console_token_file_;  // written by start(), removed by stop()
  RefusalLimiter refusals_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> wake_pending_{false};
  std::atomic<std::size_t> connection_count_{0};
  std::atomic<std::size_t> output_waiting_{0};
  std::thread thread_;
  clockid_t thread_clock_{};
  bool thread_clock_ok_ = false;
  WorkerPool workers_;
  std::map<std::uint64_t, std::unique_ptr<Conn>> conns_;
  std::uint64_t next_id_ = 1;
  // Connections refused over the cap since the last warning (one warning a minute).
  std::size_t refused_ = 0;
  std::optional<Clock::TimePoint> refused_logged_;
  bool grow_failed_logged_ = false;
  Clock::TimePoint accept_paused_until_{};
  std::optional<Clock::TimePoint> accept_failed_logged_;

  struct Reply {
    std::uint64_t conn;
    bool json;
    std::string name;
    ops::ControlReply reply;
  };
  std::mutex replies_mu_;
  std::vector<Reply> replies_;

  struct Result {
    std::uint64_t conn;
    AnswerWire wire;
  };
  std::mutex results_mu_;
  std::vector<Result> results_;
};

}  // namespace ibsm::ctl
