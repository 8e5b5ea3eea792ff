#include "ctl/access_policy.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

#include <spdlog/fmt/fmt.h>

namespace ibsm::ctl {

Peer decide_access(std::uint32_t uid, const std::vector<std::uint32_t>& groups,
                   std::uint32_t own_uid, std::optional<std::uint32_t> ctl_gid) {
  Peer p;
  p.uid = uid;
  p.known = true;
  p.may_change = uid == 0 || uid == own_uid;
  p.sees_secrets = p.may_change;
  p.may_read = p.may_change ||
               (ctl_gid && std::find(groups.begin(), groups.end(), *ctl_gid) != groups.end());
  return p;
}

Peer console_peer(std::string address) {
  Peer p;
  p.may_read = true;
  p.describe = std::move(address);
  return p;
}

Peer console_authenticated(Peer p) {
  p.may_read = p.may_change = p.sees_secrets = true;
  if (!p.describe.ends_with(" (console token)")) p.describe += " (console token)";
  return p;
}

std::optional<std::vector<std::uint32_t>> peer_groups(int fd) {
  // The kernel copies at most what fits and says ERANGE with the length it needs; a
  // user's groups may change between two calls on another connection, never on this
  // one (they are the connecting process's at connect time), so two rounds suffice;
  // a few more cost nothing.
  std::vector<gid_t> buf(64);
  for (int round = 0; round < 8; ++round) {
    socklen_t len = static_cast<socklen_t>(buf.size() * sizeof(gid_t));
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, buf.data(), &len) == 0) {
      buf.resize(len / sizeof(gid_t));
      return std::vector<std::uint32_t>(buf.begin(), buf.end());
    }
    if (errno != ERANGE) return std::nullopt;
    buf.resize(std::max<std::size_t>(len / sizeof(gid_t), buf.size() * 2));
  }
  return std::nullopt;
}

Peer unix_peer(int fd, std::uint32_t own_uid, std::optional<std::uint32_t> ctl_gid) {
  ucred cred{};
  socklen_t len = sizeof(cred);
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
    Peer p;
    p.describe = "unknown peer (no SO_PEERCRED)";
    return p;
  }
  std::vector<std::uint32_t> groups = peer_groups(fd).value_or(std::vector<std::uint32_t>{});
  groups.push_back(cred.gid);
  Peer p = decide_access(cred.uid, groups, own_uid, ctl_gid);
  p.describe = fmt::format("uid {} (pid {})", cred.uid, cred.pid);
  return p;
}

}  // namespace ibsm::ctl
