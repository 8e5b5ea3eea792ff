// The pid file (daemon/pidfile.hpp).
#include "daemon/pidfile.hpp"

#include <unistd.h>

#include <string>

#include "common/atomic_file.hpp"
#include "conf/errors.hpp"

namespace ibsm::daemon {

Pidfile::~Pidfile() {
  if (written_) ::unlink(path_.c_str());
}

Status Pidfile::write() {
  if (path_.empty()) return {};
  // A temporary file beside it, renamed over the name (common/atomic_file): a link
  // planted at the name is replaced, never followed, so the pid cannot be written into
  // whatever file it points at. Not fsynced: a pid file does not outlive a crash.
  AtomicWriteOptions how;
  how.durable = false;
  if (auto st = write_file_atomically(path_, std::to_string(::getpid()) + "\n", how); !st.ok())
    return fail(conf::kPidfileUnwritable,
                "cannot write pid file " + path_ + ": " + st.error().message);
  written_ = true;
  return {};
}

}  // namespace ibsm::daemon
