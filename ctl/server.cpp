// The control server's life and its socket thread: opening the sockets, starting and
// stopping the threads, and the poll loop that drives every connection
// (server_connections.cpp), the requests (server_dispatch.cpp) and the access rule
// (server_access.cpp), with the housekeeping of each turn (status loops, idle and
// closing connections).
#include "ctl/server.hpp"

#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

#include <spdlog/fmt/fmt.h>

#include "ctl/errors.hpp"
#include "ctl/server_conn.hpp"
#include "ctl/socket_setup.hpp"

namespace ibsm::ctl {

ControlServer::ControlServer(ops::Ops& ops, Logger log, ServerSettings settings)
    : ControlServer(ops, std::move(log), std::move(settings), steady_) {}

ControlServer::ControlServer(ops::Ops& ops, Logger log, ServerSettings settings, const Clock& clock)
    : ops_(ops),
      log_(std::move(log)),
      settings_(std::move(settings)),
      clock_(clock),
      workers_(settings_.max_workers) {}

ControlServer::~ControlServer() {
  stop();
}

double ControlServer::cpu_seconds() const {
  double sum = workers_.cpu_seconds();
  timespec ts{};
  if (thread_clock_ok_ && !stop_.load() && ::clock_gettime(thread_clock_, &ts) == 0)
    sum += static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
  return sum;
}

void ControlServer::start() {
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (!settings_.group.empty()) {
    if (const group* g = ::getgrnam(settings_.group.c_str())) {
      ctl_gid_ = g->gr_gid;
    } else {
      log_->warn("{}: ctl_group '{}' does not exist; only root may use the control socket",
                 format_error_id(kErrSocketSetup), settings_.group);
    }
  }
  if (!settings_.socket_path.empty()) {
    bool replaced = false;
    auto fd = open_unix_listener(settings_.socket_path, 64, &replaced);
    if (!fd) {
      log_->error("{}; no control socket", to_string(fd.error()));
    } else {
      unix_fd_ = *fd;
      log_->info("control socket {} (ibsm-ctl){}", settings_.socket_path,
                 replaced ? "; a stale socket of an earlier run was replaced" : "");
    }
  }
  if (settings_.console == "loopback") {
    auto fd = open_loopback_listener(settings_.console_port, 16);
    if (!fd) {
      log_->error("{}", to_string(fd.error()));
    } else {
      tcp_fd_ = *fd;
      open_console_token();
      log_->info("console on 127.0.0.1:{} (console loopback; {})", settings_.console_port,
                 console_token_.empty() ? "read-only"
                                        : "read-only until a client sends auth with the token in " +
                                              console_token_file_);
    }
  }
  if (settings_.console == "local") {
    if (::isatty(0)) {
      local_console_ = true;
    } else {
      log_->warn("{}: console local needs a terminal on standard input; not started",
                 format_error_id(kErrConsoleSetup));
    }
  }
  if (unix_fd_ < 0 && tcp_fd_ < 0 && !local_console_) return;
  const std::size_t workers = workers_.prestart(settings_.workers);
  if (workers < std::min(settings_.workers, settings_.max_workers)) {
    log_->error("{}: the control server started {} of its {} worker threads: {}",
                format_error_id(kErrThreads), workers, settings_.workers,
                workers == 0 ? "answers are computed on the socket thread, one at a time"
                             : "fewer requests are answered at once");
  }
  try {
    thread_ = std::thread([this] { loop(); });
  } catch (const std::system_error& e) {
    log_->error("{}: cannot start the control server's thread: {}; no control socket",
                format_error_id(kErrThreads), e.what());
    workers_.stop();
    if (unix_fd_ >= 0) ::close(unix_fd_), ::unlink(settings_.socket_path.c_str());
    if (tcp_fd_ >= 0) ::close(tcp_fd_);
    if (!console_token_file_.empty()) ::unlink(console_token_file_.c_str());
    unix_fd_ = tcp_fd_ = -1;
    return;
  }
  thread_clock_ok_ = ::pthread_getcpuclockid(thread_.native_handle(), &thread_clock_) == 0;
}

void ControlServer::stop() {
  if (stop_.exchange(true)) return;
  wake();
  if (thread_.joinable()) thread_.join();
  workers_.stop();  // a job running ends first (its result is dropped)
  for (auto& [id, c] : conns_)
    if (c->kind != kLocal) ::close(c->fd);
  conns_.clear();
  if (unix_fd_ >= 0) {
    ::close(unix_fd_);
    ::unlink(settings_.socket_path.c_str());
  }
  if (tcp_fd_ >= 0) ::close(tcp_fd_);
  if (!console_token_file_.empty()) ::unlink(console_token_file_.c_str());
  console_token_file_.clear();
  if (wake_fd_ >= 0) ::close(wake_fd_);
  unix_fd_ = tcp_fd_ = wake_fd_ = -1;
}

void ControlServer::wake() {
  if (wake_fd_ < 0) return;
  if (wake_pending_.exchange(true)) return;  // one write per turn of the loop is enough
  const std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(wake_fd_, &one, sizeof(one));
}

void ControlServer::housekeep(Clock::TimePoint now) {
  std::size_t waiting = 0;
  for (auto it = conns_.begin(); it != conns_.end();) {
    Conn& c = *it->second;
    serve_conn_input(c);
    if (c.next_loop && now >= *c.next_loop && !c.in_flight && c.out.bytes() < 64 * 1024 &&
        ops_.snapshot.current()) {
      Command cmd;
      cmd.id = CommandId::kStatus;
      cmd.json = c.loop_json;
      run_on_worker(c.id, c.framed(), cmd.json, "status", [this, cmd]() -> Answer {
        auto snap = ops_.snapshot.current();
        if (!snap)
          return error_answer(Error{kErrNoFabric, "the SM has not published its state yet"});
        return answer_read_only(cmd, *snap, ops_.events);
      });
      c.next_loop = now + settings_.status_loop;
    }
    // The peer sent all it will and everything it asked is answered. A follower or a
    // status loop ends with its input too (an ibsm-ctl that was killed), so that a
    // dead reader of a quiet fabric does not hold a place until the next event.
    if (c.eof && !c.in_flight && c.in.find('\n', c.in_used) == std::string::npos) c.closing = true;
    // A client that stopped taking its output is cut off (its progress is judged, not
    // the size of the answer it is taking).
    cut_off_if_stuck(c, now);
    // Half-open and silent connections: no complete line for idle_timeout and nothing
    // in flight, being written, followed or looping. The time counts from the request,
    // or from the last byte of its answer taken.
    const bool busy = c.in_flight || !c.out.empty() || c.follow || c.next_loop || c.kind == kLocal;
    const auto quiet_since = std::max(c.last_line, c.out.last_progress());
    if (!busy && !c.closing && now - quiet_since > settings_.idle_timeout) {
      Command dummy;
      send_answer(
          c, &dummy, "",
          error_answer(Error{
              kErrIdleTimeout,
              fmt::format("no request for {} s (ctl_idle_timeout); closing",
                          std::chrono::duration_cast<std::chrono::seconds>(settings_.idle_timeout)
                              .count())}));
      c.closing = true;
    }
    // Closing: once the last words are written, or when they are not taken.
    if (c.closing && (c.out.empty() || now - c.out.last_progress() > settings_.idle_timeout)) {
      close_conn(c);
      it = conns_.erase(it);
      continue;
    }
    waiting += c.out.bytes();
    ++it;
  }
  connection_count_ = conns_.size();
  output_waiting_ = waiting;
}

void ControlServer::loop() {
  if (local_console_) {
    Peer p;
    p.uid = ::geteuid();
    p.known = true;
    p.may_read = p.may_change = p.sees_secrets = true;
    p.describe = fmt::format("uid {} (local console)", p.uid);
    add_conn(0, kLocal, std::move(p));
  }
  std::vector<pollfd> fds;
  std::vector<std::uint64_t> ids;
  while (!stop_.load()) {
    fds.clear();
    ids.clear();
    fds.push_back({wake_fd_, POLLIN, 0});
    ids.push_back(0);
    const bool accepting = clock_.now() >= accept_paused_until_;
    if (unix_fd_ >= 0) {
      fds.push_back({accepting ? unix_fd_ : -1, POLLIN, 0});
      ids.push_back(0);
    }
    if (tcp_fd_ >= 0) {
      fds.push_back({accepting ? tcp_fd_ : -1, POLLIN, 0});
      ids.push_back(0);
    }
    for (auto& [id, c] : conns_) {
      short ev = 0;
      if (!c->eof && !c->closing && c->unread() < kMaxUnread &&
          c->out.bytes() <= settings_.max_output / 2)
        ev |= POLLIN;
      if (!c->out.empty() && c->kind != kLocal) ev |= POLLOUT;  // stdout is written directly
      // Nothing wanted: left out of the poll (-1), so that a peer that hung up does not
      // wake the loop over and over; its end shows when its answer is written.
      const int fd = ev == 0 ? -1 : (c->kind == kLocal ? 0 : c->fd);
      fds.push_back({fd, ev, 0});
      ids.push_back(id);
    }
    const int n = ::poll(fds.data(), fds.size(), 250);
    if (n < 0 && errno != EINTR) break;
    if (fds[0].revents & POLLIN) {
      std::uint64_t v = 0;
      [[maybe_unused]] auto r = ::read(wake_fd_, &v, sizeof(v));
    }
    wake_pending_ = false;
    // Whatever throws here (out of memory) costs a turn of the loop, not the server.
    try {
      std::size_t k = 1;
      if (unix_fd_ >= 0) {
        if (fds[k].revents & POLLIN) accept_unix();
        ++k;
      }
      if (tcp_fd_ >= 0) {
        if (fds[k].revents & POLLIN) accept_tcp();
        ++k;
      }
      for (; k < fds.size(); ++k) {
        auto it = conns_.find(ids[k]);
        if (it == conns_.end()) continue;
        Conn& c = *it->second;
        if (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) read_input(c);
        if (fds[k].revents & POLLOUT) flush(c);
      }
      take_replies();
      take_results();
      housekeep(clock_.now());
      log_refusal_summary(clock_.now());
    } catch (...) {
      try {
        log_->error("{}: the control server's loop failed a turn (out of memory?); it goes on",
                    format_error_id(kErrInternal));
      } catch (...) {  // NOLINT(bugprone-empty-catch)
      }
    }
  }
}

}  // namespace ibsm::ctl
