// ibsm-ctl: asks a running ibsm over its control socket (docs/ctl.md, ibsm-ctl(8)).
//   ibsm-ctl [--socket PATH | --instance NAME] [--json] COMMAND [ARGS...]
// Without a command it reads commands from standard input, one per line, on one
// connection. Exit status: 0 answered, 1 the command failed (error line with its ID),
// 2 usage, 3 cannot connect or the answer broke off.
#include <dirent.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "ctl/errors.hpp"
#include "ctl/paths.hpp"

namespace {

using ibsm::format_error_id;

constexpr const char* kUsage =
    "usage: ibsm-ctl [--socket PATH | --instance NAME] [--json] COMMAND [ARGS...]\n"
    "       ibsm-ctl [--socket PATH | --instance NAME] [--json]   (commands from stdin)\n"
    "Asks a running ibsm. `ibsm-ctl help` lists the commands; see ibsm-ctl(8).\n"
    "  --socket PATH    the control socket (default /run/ibsm/<instance>.sock)\n"
    "  --instance NAME  the systemd instance: a port GUID, conf.N or default\n"
    "  --json           one JSON document per command (schema in docs/ctl.md)\n";

int usage_error(const std::string& why) {
  std::cerr << "ibsm-ctl: " << format_error_id(ibsm::ctl::kErrUsage) << ": " << why << "\n"
            << kUsage;
  return 2;
}

// No --instance: "default" if it runs, else the only instance there is.
std::string pick_socket() {
  const std::string def = ibsm::ctl::socket_path_for("default");
  if (::access(def.c_str(), F_OK) == 0) return def;
  std::vector<std::string> found;
  if (DIR* d = ::opendir(ibsm::ctl::kRuntimeDir)) {
    while (dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name.size() > 5 && name.ends_with(".sock"))
        found.push_back(std::string(ibsm::ctl::kRuntimeDir) + "/" + name);
    }
    ::closedir(d);
  }
  return found.size() == 1 ? found.front() : def;
}

class Connection {
 public:
  bool open(const std::string& path) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.size() >= sizeof(addr.sun_path)) {
      errno = ENAMETOOLONG;
      return false;
    }
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    return fd_ >= 0 && ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  }
  bool send_line(const std::string& line) {
    std::string s = line + "\n";
    std::size_t off = 0;
    while (off < s.size()) {
      const ssize_t n = ::send(fd_, s.data() + off, s.size() - off, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      off += static_cast<std::size_t>(n);
    }
    return true;
  }
  // One line without its newline; false at end of stream. buf_[0, taken_) are lines
  // already returned (dropped once all is taken: an answer of many MiB is not shifted
  // line by line).
  bool read_line(std::string& line) {
    for (;;) {
      const auto nl = buf_.find('\n', taken_);
      if (nl != std::string::npos) {
        line.assign(buf_, taken_, nl - taken_);
        taken_ = nl + 1;
        return true;
      }
      buf_.erase(0, taken_);
      taken_ = 0;
      char tmp[65536];
      const ssize_t n = ::read(fd_, tmp, sizeof(tmp));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      buf_.append(tmp, static_cast<std::size_t>(n));
    }
  }
  ~Connection() {
    if (fd_ >= 0) ::close(fd_);
  }

 private:
  int fd_ = -1;
  std::string buf_;
  std::size_t taken_ = 0;
};

// Reads one framed answer, whole, then prints it: returns 0 (".ok"), 1 (".err") or 3
// (broken off). The answer is taken off the socket as fast as ibsm sends it, whatever
// standard output does: ibsm cuts off a client that stops reading (IBSM-8021), and an
// admin reading the first page of `ibsm-ctl routes | less` has not stopped.
int read_answer(Connection& c) {
  std::string out, err, line;
  bool error = false;
  int rc = 3;
  while (c.read_line(line)) {
    if (line == ".ok" || line == ".err") {
      rc = line == ".ok" ? 0 : 1;
      break;
    }
    if (line.starts_with(".")) line.erase(0, 1);
    if (!error && line.starts_with("IBSM-8")) error = true;
    std::string& to = error ? err : out;
    to += line;
    to += '\n';
  }
  std::cout << out << std::flush;
  std::cerr << err;
  if (rc == 3)
    std::cerr << "ibsm-ctl: " << format_error_id(ibsm::ctl::kErrProtocol)
              << ": the connection closed before the answer ended\n";
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  std::string socket, instance;
  bool json = false;
  std::vector<std::string> words;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (!words.empty()) {
      words.push_back(a);
    } else if (a == "--socket" || a == "-S") {
      if (++i >= argc) return usage_error("--socket needs a path");
      socket = argv[i];
    } else if (a.starts_with("--socket=")) {
      socket = a.substr(9);
    } else if (a == "--instance" || a == "-i") {
      if (++i >= argc) return usage_error("--instance needs a name");
      instance = argv[i];
    } else if (a.starts_with("--instance=")) {
      instance = a.substr(11);
    } else if (a == "--json" || a == "-j") {
      json = true;
    } else if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      return 0;
    } else if (a.starts_with("-")) {
      return usage_error("unknown option " + a);
    } else {
      words.push_back(a);
    }
  }
  if (!socket.empty() && !instance.empty())
    return usage_error("give --socket or --instance, not both");
  if (socket.empty())
    socket = instance.empty() ? pick_socket() : ibsm::ctl::socket_path_for(instance);

  Connection c;
  if (!c.open(socket)) {
    std::cerr << "ibsm-ctl: " << format_error_id(ibsm::ctl::kErrConnect) << ": cannot connect to "
              << socket << ": " << std::strerror(errno) << "\n";
    return 3;
  }
  const std::string prefix = json ? "--json " : "";
  if (words.empty()) {
    // Commands from standard input, one connection for all; the status of the last.
    int rc = 0;
    std::string line;
    while (std::getline(std::cin, line)) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      if (!c.send_line(prefix + line)) return 3;
      rc = read_answer(c);
      if (rc == 3) return 3;
    }
    return rc;
  }
  std::string cmd;
  for (const auto& w : words)
    cmd += (cmd.empty() ? "" : " ") + w;
  if (!c.send_line(prefix + cmd)) {
    // ibsm may have answered and closed before reading (a refused user): show that.
    std::string first;
    if (c.read_line(first)) {
      std::cerr << (first.starts_with(".") ? first.substr(1) : first) << "\n";
      return 1;
    }
    std::cerr << "ibsm-ctl: " << format_error_id(ibsm::ctl::kErrConnect) << ": " << socket
              << " closed the connection\n";
    return 3;
  }
  const bool follow = words[0] == "events" && (cmd.find(" --follow") != std::string::npos ||
                                               cmd.find(" -f") != std::string::npos);
  const bool loop = words[0] == "status" && words.size() > 1 && words[1] == "loop";
  if (follow) {
    // Streams until ibsm closes the connection or the user interrupts; an error is
    // still one framed answer.
    std::string line;
    while (c.read_line(line)) {
      if (line == ".err") return 1;
      if (line == ".ok") continue;
      if (line.starts_with("IBSM-8")) {
        std::cerr << line << "\n";
        continue;
      }
      std::cout << line << "\n" << std::flush;
    }
    return 0;
  }
  if (loop) {
    for (;;) {
      const int rc = read_answer(c);
      std::cout.flush();
      if (rc != 0) return rc == 3 ? 0 : rc;
    }
  }
  const int rc = read_answer(c);
  if (rc == 0 && words[0] == "quit") return 0;
  return rc;
}
