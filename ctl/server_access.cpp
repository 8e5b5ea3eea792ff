// The access rule as the control server applies it: refusals logged through the
// rate limit (refusal_log.hpp), and the loopback console's `auth TOKEN` line and its
// token file (console_token.hpp).
#include <spdlog/fmt/fmt.h>

#include "ctl/access_policy.hpp"
#include "ctl/answer_wire.hpp"
#include "ctl/console_token.hpp"
#include "ctl/errors.hpp"
#include "ctl/server.hpp"
#include "ctl/server_conn.hpp"

namespace ibsm::ctl {

void ControlServer::log_refusal(const std::string& peer, const std::string& line) {
  const auto now = clock_.now();
  const auto d = refusals_.note(now, peer);
  if (d.summary)
    log_->warn("{}: {} more control refusal(s) in 10 s not logged one by one (the last: {})",
               format_error_id(kErrNotAllowed), d.summary->suppressed, d.summary->last_peer);
  if (d.log_this) log_->warn("{}", line);
}

void ControlServer::log_refusal_summary(Clock::TimePoint now) {
  if (const auto s = refusals_.due(now))
    log_->warn("{}: {} more control refusal(s) in 10 s not logged one by one (the last: {})",
               format_error_id(kErrNotAllowed), s->suppressed, s->last_peer);
}

// `auth TOKEN` on the loopback console. True if the line was an auth line (answered).
bool ControlServer::on_auth_line(Conn& c, std::string_view line) {
  const auto token = auth_line_token(line);
  if (!token) return false;
  if (!console_token_.empty() && token_matches(*token, console_token_)) {
    c.peer = console_authenticated(std::move(c.peer));
    log_->info("control: {} authenticated on the loopback console", c.peer.describe);
    send_raw(c, "authenticated: this console may change the SM\n" + std::string(kConsolePrompt));
    return true;
  }
  // The token is never logged, nor echoed. The client is closed: one guess a connection.
  log_refusal(c.peer.describe, fmt::format("{}: console client {} sent a wrong token; closed",
                                           format_error_id(kErrAuth), c.peer.describe));
  send_raw(c, fmt::format("{}: {}\n", format_error_id(kErrAuth),
                          console_token_.empty()
                              ? "this console has no token (IBSM-8024 at start-up): read-only"
                              : "wrong token; closing"));
  c.in.clear();
  c.in_used = 0;
  c.closing = true;
  return true;
}

void ControlServer::open_console_token() {
  const std::string path = settings_.console_token_path.empty() ? console_token_path_for(settings_)
                                                                : settings_.console_token_path;
  auto token = make_console_token();
  if (!token) {
    log_->error("{}; the loopback console is read-only", to_string(token.error()));
    return;
  }
  if (auto st = write_console_token(path, *token); !st.ok()) {
    log_->error("{}; the loopback console is read-only", to_string(st.error()));
    return;
  }
  console_token_ = std::move(*token);
  console_token_file_ = path;
}

std::string console_token_path_for(const ServerSettings& s) {
  if (!s.socket_path.empty()) {
    std::string base = s.socket_path;
    if (base.ends_with(".sock")) base.resize(base.size() - 5);
    return base + ".console-token";
  }
  return fmt::format("/run/ibsm/console-{}.token", s.console_port);
}

}  // namespace ibsm::ctl
