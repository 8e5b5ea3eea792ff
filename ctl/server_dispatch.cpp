// Request dispatch of the control server: a request line becomes a command answered
// on the socket thread (quit, events --follow, status loop), computed on a worker from
// the published snapshot (read-only commands), or sent to the SM's thread (changing
// commands, perfmgr, permodlog); the SM's replies and the workers' results come back
// here to be written.
#include <cerrno>
#include <cstring>
#include <exception>
#include <fstream>
#include <functional>
#include <mutex>

#include <spdlog/fmt/fmt.h>

#include "common/json_writer.hpp"
#include "ctl/answer_wire.hpp"
#include "ctl/errors.hpp"
#include "ctl/server.hpp"
#include "ctl/server_conn.hpp"
#include "ctl/sm_request.hpp"

namespace ibsm::ctl {

void ControlServer::submit(Conn& c, const Command& cmd, std::string_view line) {
  if (cmd.changes && !c.peer.may_change) {
    log_refusal(c.peer.describe, fmt::format("{}: {} refused '{}': changing commands are root only",
                                             format_error_id(kErrRootOnly), c.peer.describe,
                                             std::string(line.substr(0, 200))));
    const std::string why = c.kind == kTcp
                                ? fmt::format(
                                      "'{}' changes the SM: on the loopback console only after "
                                      "'auth TOKEN' (TOKEN: the content of console_token_file, "
                                      "readable by root)",
                                      spec_of(cmd.id).name)
                                : fmt::format("'{}' changes the SM: root only ({} may read)",
                                              spec_of(cmd.id).name, c.peer.describe);
    send_answer(c, &cmd, spec_of(cmd.id).name, error_answer(Error{kErrRootOnly, why}));
    return;
  }
  auto request = control_request_for(cmd);
  if (!request) return;
  ops::ControlRequest& r = *request;
  r.uid = c.peer.uid;
  r.command = std::string(line.substr(0, 200));
  if (r.changes) log_->info("control: {} sent '{}'", c.peer.describe, r.command);
  const std::uint64_t id = c.id;
  const bool json = cmd.json;
  std::string name(spec_of(cmd.id).name);
  r.reply = [this, id, json, name](ops::ControlReply reply) {
    {
      std::lock_guard lock(replies_mu_);
      replies_.push_back(Reply{id, json, name, std::move(reply)});
    }
    wake();
  };
  if (!ops_.control.push(std::move(r))) {
    send_answer(
        c, &cmd, name,
        error_answer(Error{kErrBusy, "64 changing requests already wait for the SM; retry"}));
    return;
  }
  c.in_flight = true;
}

namespace {

// IBSM-8020 for a request whose answer could not be computed or encoded; logged.
AnswerWire internal_error_wire(const Logger& log, bool framed, bool json, std::string_view name,
                               std::string_view what) {
  try {
    log->error("{}: control request '{}' failed: {}", format_error_id(kErrInternal), name, what);
  } catch (...) {  // NOLINT(bugprone-empty-catch): the log is best effort here
  }
  return encode_answer_parts(
      framed, json, name,
      error_answer(Error{kErrInternal, fmt::format("'{}' failed inside ibsm ({}); the SM is not "
                                                   "affected",
                                                   name, what)}));
}

// The SM's reply as an answer, in the one form the request asked for: the text moved,
// not copied (a PerfMgr dump can be tens of MiB), or its JSON document.
Answer answer_of_reply(ops::ControlReply reply, bool json) {
  Answer a;
  a.ok = reply.ok;
  if (reply.ok && json) {
    JsonWriter j;
    j.begin_object().field("message", reply.text).end_object();
    a.json = std::move(j).take();
  } else if (reply.ok) {
    a.text = std::move(reply.text);
    a.text += '\n';
  } else {
    a = error_answer(Error{ErrorId{reply.error_id}, reply.text});
  }
  return a;
}

}  // namespace

void ControlServer::take_replies() {
  std::vector<Reply> got;
  {
    std::lock_guard lock(replies_mu_);
    got.swap(replies_);
  }
  for (Reply& r : got) {
    auto it = conns_.find(r.conn);
    const bool framed = it == conns_.end() || it->second->framed();
    if (r.reply.finish) {
      // What the SM left to do from its immutable snapshot (format counters, write
      // dump_counters' file) is done on a worker, even for a client that has left.
      run_on_worker(r.conn, framed, r.json, std::move(r.name),
                    [finish = std::move(r.reply.finish), json = r.json] {
                      return answer_of_reply(finish(), json);
                    });
      continue;
    }
    if (it == conns_.end()) continue;  // the client left; the SM did the work anyway
    Conn& c = *it->second;
    c.in_flight = false;
    Command cmd;
    cmd.json = r.json;
    send_answer(c, &cmd, r.name, answer_of_reply(std::move(r.reply), r.json));
  }
}

void ControlServer::run_on_worker(std::uint64_t conn, bool framed, bool json, std::string name,
                                  std::function<Answer()> compute) {
  if (auto it = conns_.find(conn); it != conns_.end()) it->second->in_flight = true;
  auto job = [this, conn, framed, json, name = std::move(name), compute = std::move(compute)] {
    // A bug or an exhausted allocator must cost this request, not the SM: computing the
    // answer and encoding it (which copies it, and may run out of memory) both happen
    // inside the try; the error answer is small.
    AnswerWire wire;
    try {
      wire = encode_answer_parts(framed, json, name, compute());
    } catch (const std::exception& e) {
      wire = internal_error_wire(log_, framed, json, name, e.what());
    } catch (...) {
      wire = internal_error_wire(log_, framed, json, name, "unknown exception");
    }
    try {
      std::lock_guard lock(results_mu_);
      results_.push_back(Result{conn, std::move(wire)});
    } catch (...) {
      // No memory even to queue the answer: the client's request stays in flight until
      // it leaves or times out; the SM and the other clients go on.
      log_->error("{}: control request '{}': no memory to queue its answer",
                  format_error_id(kErrInternal), name);
    }
    wake();
  };
  const auto posted = workers_.post(job);
  if (posted.grow_failed && !grow_failed_logged_) {
    grow_failed_logged_ = true;
    log_->warn("{}: cannot start another control worker thread ({} run); requests wait for one",
               format_error_id(kErrThreads), workers_.threads());
  }
  if (!posted.queued) job();  // no worker at all: answered here, one at a time
}

void ControlServer::take_results() {
  std::vector<Result> got;
  {
    std::lock_guard lock(results_mu_);
    got.swap(results_);
  }
  for (Result& r : got) {
    auto it = conns_.find(r.conn);
    if (it == conns_.end()) continue;
    Conn& c = *it->second;
    c.in_flight = false;
    send_wire(c, std::move(r.wire));
  }
}

void ControlServer::on_line(Conn& c, std::string_view line) {
  c.last_line = clock_.now();
  if (is_blank(line)) {
    if (!c.framed()) send_raw(c, "ibsm $ ");
    return;
  }
  if (c.kind == kTcp && on_auth_line(c, line)) return;
  auto parsed = parse_command(line);
  if (!parsed) {
    Command dummy;
    dummy.json = line.starts_with("--json");
    send_answer(c, &dummy, "", error_answer(parsed.error()));
    return;
  }
  const Command& cmd = *parsed;
  const std::string name(spec_of(cmd.id).name);
  switch (cmd.id) {
    case CommandId::kQuit:
      if (c.kind == kLocal) {
        send_answer(c, &cmd, name,
                    error_answer(Error{kErrBadArgument,
                                       "quit is not valid on the local console; use ctrl-c"}));
        return;
      }
      // The Unix socket answers .ok; the console closes without a last prompt.
      if (c.framed()) send_answer(c, &cmd, name, Answer{});
      c.closing = true;
      return;
    case CommandId::kEvents:
      if (cmd.flag) {
        c.follow_json = cmd.json;
        c.follow = ops_.events.subscribe(settings_.follow_queue, [this] { wake(); });
        if (cmd.number) {  // history first, then live
          for (const auto& e : ops_.events.history(*cmd.number))
            c.out.push_stream((cmd.json ? ops::encode_json(*e) : ops::encode_text(*e)) + "\n",
                              clock_.now());
        }
        flush(c);
        return;
      }
      break;
    case CommandId::kStatus:
      if (cmd.flag) {
        c.loop_json = cmd.json;
        c.next_loop = clock_.now();
        return;
      }
      break;
    default:
      break;
  }
  if ((cmd.changes && cmd.id != CommandId::kDumpPortGuid) || cmd.id == CommandId::kPerfmgr ||
      cmd.id == CommandId::kPermodlog) {
    submit(c, cmd, line);
    return;
  }
  if (cmd.id == CommandId::kDumpPortGuid && !cmd.file.empty() && !c.peer.may_change) {
    log_refusal(c.peer.describe,
                fmt::format("{}: {} refused 'dump_portguid file': writes a file, root only",
                            format_error_id(kErrRootOnly), c.peer.describe));
    send_answer(c, &cmd, name,
                error_answer(Error{kErrRootOnly,
                                   "dump_portguid file writes a file as ibsm's user: root only"}));
    return;
  }
  // Everything else is read from the published snapshot, on a worker: a report over a
  // big fabric takes as long as it takes without holding up anyone else.
  run_on_worker(
      c.id, c.framed(), cmd.json, name,
      [this, cmd, who = c.peer.describe, secrets = c.peer.sees_secrets] {
        auto snap = ops_.snapshot.current();
        if (!snap)
          return error_answer(Error{kErrNoFabric, "the SM has not published its state yet"});
        Answer a = answer_read_only(cmd, *snap, ops_.events, secrets);
        if (a.ok && cmd.id == CommandId::kDumpPortGuid && !cmd.file.empty()) {
          std::ofstream f(cmd.file, std::ios::trunc);
          f << a.text;
          if (!f.flush()) {
            a = error_answer(Error{kErrBadArgument, fmt::format("cannot write {}: {}", cmd.file,
                                                                std::strerror(errno))});
          } else {
            log_->info("control: {} wrote the port GUIDs to {}", who, cmd.file);
            a.text = fmt::format("port GUIDs written to {}\n", cmd.file);
          }
        }
        return a;
      });
}

}  // namespace ibsm::ctl
