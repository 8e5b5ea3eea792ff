// The pid file (daemon/pidfile.hpp).
#include "daemon/pidfile.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "conf/errors.hpp"

namespace ibsm::daemon {

Pidfile::~Pidfile() {
  if (written_) ::unlink(path_.c_str());
}

Status Pidfile::write() {
  if (path_.empty()) return {};
  ::unlink(path_.c_str());
  std::ofstream out(path_, std::ios::trunc);
  out << ::getpid() << "\n";
  if (!out.flush()) {
    const int err = errno;
    return fail(conf::kPidfileUnwritable,
                "cannot write pid file " + path_ + ": " + std::strerror(err));
  }
  written_ = true;
  return {};
}

}  // namespace ibsm::daemon
