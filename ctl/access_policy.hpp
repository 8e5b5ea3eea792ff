// Who is at the other end of a control connection, and what they may do (docs/ctl.md,
// "Who may do what"; docs/security.md). Identity comes from the kernel only:
// SO_PEERCRED and SO_PEERGROUPS on the Unix socket; nothing on the loopback console,
// whose peers are anonymous (read-only) until they prove they can read the console
// token (ctl/console_token.hpp). /proc/net/tcp and /proc/PID/status are never read:
// the first shows uid 0 for TIME_WAIT and orphaned sockets, the second may belong to
// another process by the time it is read (PID reuse).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ibsm::ctl {

struct Peer {
  std::uint32_t uid = 0;
  bool known = false;         // the uid is the kernel's word (SO_PEERCRED)
  bool may_read = false;      // read-only commands
  bool may_change = false;    // commands that change the SM or the fabric, files written
  bool sees_secrets = false;  // dump_conf with its keys (m_key, sm_key, ...)
  std::string describe;       // "uid 0 (pid 1234)", "127.0.0.1:40000" for the log
};

// The access rule (pure): root and ibsm's own user may do anything and see the keys;
// members of the configured group may read. `groups` are the peer's primary and
// supplementary gids.
Peer decide_access(std::uint32_t uid, const std::vector<std::uint32_t>& groups,
                   std::uint32_t own_uid, std::optional<std::uint32_t> ctl_gid);

// A loopback console peer: TCP carries no credentials, so nobody in particular. It may
// read (as anyone on the host may on OpenSM's console) and change nothing, and sees no
// keys, until it authenticates (console_authenticated).
Peer console_peer(std::string address);
// The same peer after `auth TOKEN` with the right token: root's rights.
Peer console_authenticated(Peer p);

// The groups the kernel recorded for a Unix socket's peer when it connected
// (SO_PEERGROUPS, Linux >= 4.13), any number of them (the buffer grows on ERANGE).
// nullopt where the kernel does not know the option: the caller then counts the
// primary group only (SO_PEERCRED's gid), which never grants more than the kernel
// said.
std::optional<std::vector<std::uint32_t>> peer_groups(int fd);

// The peer of an accepted Unix-socket connection: SO_PEERCRED's uid and gid, and
// SO_PEERGROUPS' groups, through decide_access. A peer the kernel cannot name may do
// nothing.
Peer unix_peer(int fd, std::uint32_t own_uid, std::optional<std::uint32_t> ctl_gid);

}  // namespace ibsm::ctl
