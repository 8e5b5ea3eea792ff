#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <sstream>

#include "agent/errors.hpp"
#include "agent/ipoib_rules.hpp"
#include "agent/kernel.hpp"

namespace ibsm::agent {

CommandResult ProcessRunner::run(const std::vector<std::string>& argv) const {
  CommandResult r;
  int pipefd[2];
  if (argv.empty() || ::pipe2(pipefd, O_CLOEXEC) != 0) return r;
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(pipefd[0]);
    ::close(pipefd[1]);
    return r;
  }
  if (pid == 0) {
    // watch blocks SIGHUP/SIGTERM/SIGINT to take them with sigtimedwait; a command must
    // start with none blocked, or `systemctl stop` could not end it.
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::dup2(pipefd[1], 1);
    ::dup2(pipefd[1], 2);
    std::vector<char*> args;
    for (const auto& a : argv)
      args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  ::close(pipefd[1]);
  char buf[4096];
  ssize_t n;
  while ((n = ::read(pipefd[0], buf, sizeof buf)) > 0)
    r.output.append(buf, static_cast<std::size_t>(n));
  ::close(pipefd[0]);
  int status = 0;
  if (::waitpid(pid, &status, 0) == pid && WIFEXITED(status)) r.status = WEXITSTATUS(status);
  return r;
}

static std::string join_argv(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv)
    s += (s.empty() ? "" : " ") + a;
  return s;
}

Status LiveKernel::exec(const std::vector<std::string>& argv) const {
  CommandResult r = runner_.run(argv);
  if (r.status == 0) return {};
  std::string out = trim(r.output);
  // iproute2's answer when ib_ipoib is not loaded (the kernel knows no "ipoib" link kind).
  if (out.find("Unknown device type") != std::string::npos)
    return fail(kKernelSupportMissing, join_argv(argv) + ": ib_ipoib is not loaded (" + out + ")");
  if (r.status == 127 || r.status < 0)
    return fail(kCommandFailed, join_argv(argv) + ": could not run " + argv[0]);
  return fail(kCommandFailed, join_argv(argv) + ": exit " + std::to_string(r.status) + ": " + out);
}

Status LiveKernel::create_ipoib_child(const std::string& parent, const std::string& name,
                                      std::uint16_t pkey, const std::string& mode) {
  return exec({"ip", "link", "add", "link", parent, "name", name, "type", "ipoib", "pkey",
               format_pkey(normalize_pkey(pkey)), "mode", mode});
}

Status LiveKernel::set_ipoib_mode(const std::string& iface, const std::string& mode) {
  return exec({"ip", "link", "set", "dev", iface, "type", "ipoib", "mode", mode});
}

Status LiveKernel::set_mtu(const std::string& iface, int mtu) {
  return exec({"ip", "link", "set", "dev", iface, "mtu", std::to_string(mtu)});
}

Status LiveKernel::set_alias(const std::string& iface, const std::string& alias) {
  return exec({"ip", "link", "set", "dev", iface, "alias", alias});
}

Status LiveKernel::set_up(const std::string& iface) {
  return exec({"ip", "link", "set", "dev", iface, "up"});
}

Status LiveKernel::delete_link(const std::string& iface) {
  return exec({"ip", "link", "del", "dev", iface});
}

std::vector<std::string> parse_ip_addr_output(const std::string& output) {
  std::vector<std::string> out;
  std::istringstream in(output);
  std::string tok, prev;
  while (in >> tok) {
    if (prev == "inet" || prev == "inet6") out.push_back(tok);
    prev = tok;
  }
  return out;
}

std::vector<std::string> LiveKernel::addresses(const std::string& iface) const {
  CommandResult r = runner_.run({"ip", "-o", "addr", "show", "dev", iface});
  return r.status == 0 ? parse_ip_addr_output(r.output) : std::vector<std::string>{};
}

Status LiveKernel::add_address(const std::string& iface, const std::string& cidr) {
  return exec({"ip", "addr", "replace", cidr, "dev", iface});
}

Status LiveKernel::add_rdma_link(const std::string& name, const std::string& type,
                                 const std::string& netdev) {
  return exec({"rdma", "link", "add", name, "type", type, "netdev", netdev});
}

Status LiveKernel::load_module(const std::string& module) {
  return exec({"modprobe", module});
}

Status LiveKernel::configfs_mkdir(const std::string& path) {
  return fs_.make_dir(path);
}

Status LiveKernel::run(const std::vector<std::string>& argv) {
  return exec(argv);
}

}  // namespace ibsm::agent
