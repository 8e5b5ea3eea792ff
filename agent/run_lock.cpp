#include "agent/run_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "agent/errors.hpp"

namespace ibsm::agent {

RunLock::~RunLock() {
  if (fd_ >= 0) ::close(fd_);
}

Result<RunLock> RunLock::acquire(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return fail(kWriteFailed, "open " + path + ": " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int e = errno;
    ::close(fd);
    if (e == EWOULDBLOCK) return fail(kBusy, "another ibsm-agent apply holds " + path);
    return fail(kWriteFailed, "flock " + path + ": " + std::strerror(e));
  }
  return RunLock(fd);
}

}  // namespace ibsm::agent
