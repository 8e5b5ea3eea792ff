#include "agent/memlock_check.hpp"
#include "agent/input_grammar.hpp"

#include <cstdint>
#include <limits>
#include <sstream>
#include <vector>

namespace ibsm::agent {
namespace {

constexpr std::uint64_t kUnlimited = std::numeric_limits<std::uint64_t>::max();

// "unlimited" (/proc, limits.conf) and "infinity" (systemd) are the same; else bytes.
std::optional<std::uint64_t> limit_value(const std::string& s) {
  if (s == "unlimited" || s == "infinity") return kUnlimited;
  return parse_uint(s, kUnlimited - 1);
}

// limits.conf counts KiB.
std::uint64_t kib_limit(const std::string& kib_or_unlimited) {
  if (kib_or_unlimited == "unlimited") return kUnlimited;
  // The node file admits at most INT64_MAX / 1024 KiB; anything else counts as unlimited.
  auto kib = parse_uint(kib_or_unlimited, (kUnlimited - 1) / 1024);
  return kib ? *kib * 1024 : kUnlimited;
}

std::string bytes_text(std::uint64_t v) {
  return v == kUnlimited ? "unlimited" : std::to_string(v) + " bytes";
}

// PAM files whose session stack logins go through (Debian, then RHEL, then per service).
constexpr const char* kPamSessionFiles[] = {"/etc/pam.d/common-session", "/etc/pam.d/system-auth",
                                            "/etc/pam.d/password-auth", "/etc/pam.d/sshd",
                                            "/etc/pam.d/login"};

bool pam_limits_enabled(const Fs& fs) {
  for (const char* f : kPamSessionFiles) {
    std::istringstream in(fs.read(f).value_or(""));
    for (std::string line; std::getline(in, line);) {
      std::string t = trim(line);
      if (!t.empty() && t[0] != '#' && t.find("pam_limits.so") != std::string::npos) return true;
    }
  }
  return false;
}

// The group's GID from /etc/group, if it is there.
std::optional<unsigned> group_id(const Fs& fs, const std::string& group) {
  std::istringstream in(fs.read("/etc/group").value_or(""));
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(group + ":", 0) != 0) continue;
    std::istringstream f(line);
    std::string name, pw, gid;
    std::getline(f, name, ':');
    std::getline(f, pw, ':');
    std::getline(f, gid, ':');
    if (auto v = parse_uint(gid, 0xffffffffu)) return static_cast<unsigned>(*v);
  }
  return std::nullopt;
}

// A process of /proc/<pid>/status: its name and whether `gid` is among its groups.
bool in_group(const std::string& status, unsigned gid, std::string& name) {
  bool member = false;
  std::istringstream in(status);
  for (std::string line; std::getline(in, line);) {
    std::istringstream f(line);
    std::string key;
    f >> key;
    if (key == "Name:") f >> name;
    if (key == "Gid:") {
      unsigned real = 0;
      if (f >> real) member = member || real == gid;
    }
    if (key == "Groups:")
      for (unsigned g; f >> g;)
        member = member || g == gid;
  }
  return member;
}

}  // namespace

std::optional<std::pair<std::string, std::string>> parse_proc_memlock(const std::string& limits) {
  std::istringstream in(limits);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Max locked memory", 0) != 0) continue;
    std::istringstream f(line.substr(17));
    std::string soft, hard;
    if (f >> soft >> hard && limit_value(soft) && limit_value(hard)) return std::pair{soft, hard};
    return std::nullopt;
  }
  return std::nullopt;
}

std::string systemd_memlock(const std::string& kib_or_unlimited) {
  if (kib_or_unlimited == "unlimited") return "infinity";
  return std::to_string(kib_limit(kib_or_unlimited));
}

Verdict verify_memlock_group(const std::string& resource, const Memlock& want, const Fs& fs) {
  const std::string at_next_login = "limits file in place; effective at the next login";
  if (fs.is_dir("/etc/pam.d") && !pam_limits_enabled(fs))
    return {resource, VerifyState::kFailed,
            "pam_limits.so is in none of /etc/pam.d/common-session, system-auth, password-auth, "
            "sshd, login: logins never read limits.d, so @" +
                want.group + " never gets the limit (add `session required pam_limits.so`)"};
  if (!fs.exists("/etc/group")) return {resource, VerifyState::kOk, at_next_login};
  auto gid = group_id(fs, want.group);
  if (!gid)
    return {resource, VerifyState::kFailed,
            "group " + want.group + " is not in /etc/group: the limits for @" + want.group +
                " apply to nobody (create it and add the RDMA users)"};
  const std::uint64_t soft = kib_limit(want.soft), hard = kib_limit(want.hard);
  int checked = 0;
  std::vector<std::string> short_of;
  for (const auto& pid : fs.list("/proc")) {
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string name;
    if (!in_group(fs.read("/proc/" + pid + "/status").value_or(""), *gid, name)) continue;
    auto have = parse_proc_memlock(fs.read("/proc/" + pid + "/limits").value_or(""));
    if (!have) continue;  // gone meanwhile
    ++checked;
    if (*limit_value(have->first) < soft || *limit_value(have->second) < hard)
      short_of.push_back("PID " + pid + " (" + name + "): soft " +
                         bytes_text(*limit_value(have->first)) + ", hard " +
                         bytes_text(*limit_value(have->second)));
  }
  if (!short_of.empty())
    return {resource, VerifyState::kDrift,
            std::to_string(short_of.size()) + " of " + std::to_string(checked) +
                " process(es) of group " + want.group + " run with less than the limit (soft " +
                bytes_text(soft) + ", hard " + bytes_text(hard) + "), e.g. " + short_of.front() +
                ": started before the limit or outside a PAM login; log in again or restart "
                "them"};
  if (checked == 0)
    return {resource, VerifyState::kOk,
            at_next_login + "; no process of group " + want.group + " runs now"};
  return {resource, VerifyState::kOk,
          std::to_string(checked) + " process(es) of group " + want.group +
              " run with the limit (soft " + bytes_text(soft) + ", hard " + bytes_text(hard) + ")"};
}

Verdict verify_memlock_service(const std::string& resource, const std::string& unit,
                               const Memlock& want, const Observed& observed, const Fs& fs) {
  const std::string limit = systemd_memlock(want.hard);
  auto it = observed.unit_memlock.find(unit);
  if (it == observed.unit_memlock.end())
    return {resource, VerifyState::kOk,
            "drop-in in place; systemd not asked (effective at " + unit + "'s next start)"};
  const UnitMemlock& u = it->second;
  if (limit_value(u.limit_memlock) != limit_value(limit))
    return {resource, VerifyState::kDrift,
            "systemd has LimitMEMLOCK=" + u.limit_memlock + " loaded for " + unit +
                ", the drop-in says " + limit + ": run `systemctl daemon-reload`"};
  if (u.main_pid == 0)
    return {resource, VerifyState::kOk,
            "LimitMEMLOCK=" + limit + " loaded; " + unit +
                " has no main process now (in force at its next start)"};
  const std::string pid = std::to_string(u.main_pid);
  auto have = parse_proc_memlock(fs.read("/proc/" + pid + "/limits").value_or(""));
  if (!have)
    return {resource, VerifyState::kOk,
            "LimitMEMLOCK=" + limit + " loaded; main process " + pid + " gone meanwhile"};
  const std::uint64_t want_bytes = *limit_value(limit);
  if (*limit_value(have->first) < want_bytes || *limit_value(have->second) < want_bytes)
    return {resource, VerifyState::kDrift,
            unit + "'s main process (PID " + pid + ") runs with memlock soft " +
                bytes_text(*limit_value(have->first)) + ", hard " +
                bytes_text(*limit_value(have->second)) + "; the drop-in says " +
                bytes_text(want_bytes) + ": restart it (`systemctl restart " + unit + "`)"};
  return {resource, VerifyState::kOk,
          unit + "'s main process (PID " + pid + ") runs with memlock " + bytes_text(want_bytes)};
}

}  // namespace ibsm::agent
