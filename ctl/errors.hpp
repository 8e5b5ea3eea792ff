// Operator-visible errors of the control socket, ibsm-ctl and the event stream
// (range IBSM-8001..8199). A request that fails gets exactly one error line with one of
// these IDs; the connection stays usable and the SM is not affected.
// The IDs the SM itself answers with (sweeps, handover, perfmgr, permodlog) are defined
// in ops/errors.hpp, since sm/ may not include ctl/; they are referred to here.
#pragma once

#include "common/error.hpp"
#include "ops/errors.hpp"

namespace ibsm::ctl {

inline constexpr ErrorId kErrUnknownCommand{8001};
inline constexpr ErrorId kErrBadArgument{8002};
inline constexpr ErrorId kErrLineTooLong{8003};
inline constexpr ErrorId kErrNotAllowed{8004};
inline constexpr ErrorId kErrRootOnly{8005};
inline constexpr ErrorId kErrIdleTimeout{8006};
inline constexpr ErrorId kErrTooManyConnections{8007};
inline constexpr ErrorId kErrBusy{8008};
inline constexpr ErrorId kErrNoFabric{8009};
inline constexpr ErrorId kErrNotFound{8010};
using ops::kErrNotAvailable;  // the SM answers with it (ops/errors.hpp)
inline constexpr ErrorId kErrSocketSetup{8012};
inline constexpr ErrorId kErrConnect{8013};
inline constexpr ErrorId kErrProtocol{8014};
inline constexpr ErrorId kErrEventsFile{8015};
inline constexpr ErrorId kErrMalformed{8016};
inline constexpr ErrorId kErrUsage{8017};
inline constexpr ErrorId kErrConsoleSetup{8018};
inline constexpr ErrorId kErrThreads{8019};
inline constexpr ErrorId kErrInternal{8020};
inline constexpr ErrorId kErrStoppedReading{8021};
inline constexpr ErrorId kErrPattern{8022};
inline constexpr ErrorId kErrAuth{8023};
inline constexpr ErrorId kErrConsoleToken{8024};
using ops::kErrNoModel;      // the SM answers with it (ops/errors.hpp)
using ops::kErrNoStandby;    // the SM answers with it (ops/errors.hpp)
using ops::kErrNotMaster;    // the SM answers with it (ops/errors.hpp)
using ops::kErrNotSweeping;  // the SM answers with it (ops/errors.hpp)
using ops::kErrPerfmgr;      // the SM answers with it (ops/errors.hpp)
using ops::kErrSweepFailed;  // the SM answers with it (ops/errors.hpp)

inline constexpr ErrorInfo kCtlErrors[] = {
    {kErrUnknownCommand, "Unknown control command",
     "A line sent to the control socket (or typed at the console) does not start with a command "
     "ibsm knows. Nothing was done; the connection stays open.",
     "`ibsm-ctl help` lists the commands (docs/ctl.md)."},
    {kErrBadArgument, "Invalid argument to a control command",
     "A command got a missing, extra or malformed argument (a LID out of range, a GUID that is "
     "not hexadecimal, `resweep` without heavy or light). The message names the argument and "
     "what is allowed. Nothing was done.",
     "`ibsm-ctl help COMMAND` shows the syntax."},
    {kErrLineTooLong, "Control request line too long",
     "A request line exceeded 4096 bytes. The bytes up to the next newline are discarded and "
     "the line is answered with this error.",
     "Send one command per line; no command needs more than a few hundred bytes."},
    {kErrNotAllowed, "Control socket access refused",
     "The peer's uid (from the kernel, SO_PEERCRED) is neither root, nor ibsm's own user, nor a "
     "member of the group named by ctl_group (its groups from the kernel too, SO_PEERGROUPS, "
     "any number of them). The connection is closed. Refusals are logged with the peer's uid "
     "and pid, the first 5 in 10 s each, then one line counting the rest.",
     "Run ibsm-ctl as root, or add the user to the ctl_group group (docs/ctl.md)."},
    {kErrRootOnly, "Command changes the SM: root only",
     "A member of ctl_group, or a loopback console client that has not authenticated, sent a "
     "command that changes the SM or the fabric (resweep, reroute, sweep, priority, handover, "
     "loglevel, logflush or permodlog with an argument, update_desc, node_names reload, the "
     "perfmgr subcommands that change it, dump_portguid file). Nothing was done; read-only "
     "commands still work on this connection. Logged with the peer, rate-limited like "
     "IBSM-8004.",
     "Run the command as root with ibsm-ctl; on the loopback console send `auth TOKEN` first, "
     "TOKEN being the content of console_token_file (root only; docs/ctl.md)."},
    {kErrIdleTimeout, "Control connection timed out",
     "A connection sent no complete line for ctl_idle_timeout seconds (default 30), or left a "
     "partial line unfinished that long, and is closed. A connection waiting for an answer, "
     "following events or running `status loop` is never timed out for being quiet.",
     "Send the command as soon as the connection is open, ending it with a newline; raise "
     "ctl_idle_timeout for interactive consoles left open."},
    {kErrTooManyConnections, "Too many control connections",
     "The control socket and the loopback console together already serve ctl_max_connections "
     "connections (default 256; event followers and consoles count too). The new one gets this "
     "line (framed with .err on the Unix socket, plain on the console) and is closed at once; "
     "the open ones are not affected.",
     "Close idle ibsm-ctl sessions, or raise ctl_max_connections."},
    {kErrBusy, "SM busy: too many changing requests waiting",
     "64 changing requests already wait for the SM's thread; this one was not queued.",
     "Wait for the earlier requests to be answered, then retry."},
    {kErrNoFabric, "No fabric snapshot yet",
     "The command reads the fabric of the last heavy sweep, and there is none yet (the first "
     "sweep is running, this SM is STANDBY and never swept, or a big fabric's snapshot is being "
     "rebuilt).",
     "Retry after the next SUBNET UP (`ibsm-ctl events --follow` shows it)."},
    {kErrNotFound, "LID, GUID or name not found",
     "The LID or GUID given is not in the fabric of the last heavy sweep.",
     "Check the value with `ibsm-ctl dump_portguid .` or saquery."},
    ops::kNotAvailableInfo,
    {kErrSocketSetup, "Cannot open the control socket or console",
     "ibsm could not create, bind or listen on its control socket (or the loopback console "
     "port). The SM runs without it; the log line names the path or port and the reason.",
     "Create the directory (the systemd unit's RuntimeDirectory does), free the port, or set "
     "ctl_socket / console_port."},
    {kErrConnect, "ibsm-ctl cannot reach ibsm",
     "ibsm-ctl could not connect to the control socket: no ibsm runs for that instance, or the "
     "path is wrong.",
     "Check `systemctl status ibsm@INSTANCE`, or pass --socket PATH / --instance NAME."},
    {kErrProtocol, "Malformed answer from ibsm",
     "ibsm-ctl received an answer it cannot read (the connection closed in the middle of it).",
     "Check the ibsm log; retry."},
    {kErrEventsFile, "Cannot write the events file",
     "The events file (events_file, --events-file) cannot be opened, written or rotated. Events "
     "still reach ibsm-ctl readers; the file is retried at the next event after 10 seconds.",
     "Check the path, its directory and free space."},
    {kErrMalformed, "Control request is not text",
     "A request line holds control characters or bytes that are not printable ASCII. Nothing "
     "was done.",
     "Send commands as plain text lines."},
    {kErrUsage, "ibsm-ctl usage error", "ibsm-ctl was given an unknown option or no command.",
     "See `ibsm-ctl --help` or man ibsm-ctl(8)."},
    {kErrConsoleSetup, "Console not started",
     "`console local` needs ibsm in the foreground with a terminal on standard input; without "
     "one (daemon mode, systemd) the local console is not started. The SM runs normally.",
     "Use `console loopback`, or ibsm-ctl, which always works."},
    {kErrThreads, "Control server thread not started",
     "The control server could not start a thread (the process or the systemd unit's TasksMax "
     "is out of threads): at start-up its socket thread (then there is no control socket) or "
     "its workers (then answers are computed on fewer threads, one at a time if none started), "
     "or later another worker while every one was busy (then a request waits for a free one). "
     "The SM is not affected.",
     "Raise the thread limit (`systemctl show -p TasksMax ibsm@...`, ulimit -u) and restart."},
    {kErrInternal, "Control request failed inside ibsm",
     "Computing the answer to a request raised an error (out of memory, or a bug); the log "
     "names the command and the reason. The request's answer is this error, the connection "
     "stays usable and the SM is not affected.",
     "Report it with the log line; retry the command."},
    {kErrStoppedReading, "Control client stopped reading its answers",
     "A control connection (ibsm-ctl, the loopback console) left an answer unread: nothing of it "
     "could be written for ctl_idle_timeout seconds (default 30), or more than 1 MiB of further "
     "output piled up behind the answer being sent. ibsm logs this warning, drops what was "
     "waiting and closes the connection; ibsm-ctl at the other end reports IBSM-8014. An answer "
     "of any size is sent whole to a client that keeps reading it, however slowly; an event "
     "follower that falls behind loses events (events_dropped) rather than its connection.",
     "Read answers as they come (ibsm-ctl does, even into a pager); for a slow consumer, raise "
     "ctl_idle_timeout."},
    {kErrPattern, "dump_portguid pattern refused",
     "A dump_portguid regular expression is longer than 256 bytes, uses syntax RE2 does not "
     "take (back-references, collating elements, repetition over 1000), needs more than its "
     "share of 8 MiB to compile, or the match over every NodeDescription took more than 1 s. "
     "Nothing was matched; the connection stays usable.",
     "Use a shorter POSIX extended pattern (RE2 syntax: docs/ctl.md); `.` matches everything."},
    {kErrAuth, "Console authentication failed",
     "A loopback console client sent `auth` with a token that is not the one in "
     "console_token_file (or the console has no token: the file could not be written, "
     "IBSM-8024). The connection is closed; the refusal is logged with the client's address, "
     "rate-limited.",
     "Read the token from console_token_file as root: `printf 'auth %s\\n' \"$(cat FILE)\"`."},
    {kErrConsoleToken, "Console token file not written",
     "At start-up ibsm could not write the loopback console's token file (console_token_file: "
     "its directory is missing or not writable, or no random bytes). The console runs "
     "read-only: every changing command on it answers IBSM-8005. ibsm-ctl is not affected.",
     "Create the directory (systemd's RuntimeDirectory makes /run/ibsm), or set "
     "console_token_file; restart."},
    ops::kSweepFailedInfo,
    ops::kNotSweepingInfo,
    ops::kNoModelInfo,
    ops::kNotMasterInfo,
    ops::kNoStandbyInfo,
    ops::kPerfmgrInfo,
};

}  // namespace ibsm::ctl
