#include "common/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ibsm {

namespace {
Unexpected<Error> io_error(const std::string& what, const std::string& path) {
  return fail(kErrFileWrite, what + " " + path + ": " + std::strerror(errno));
}
}  // namespace

namespace {

// The temporary file, written, synced and closed, goes into place.
Status put_in_place(const std::string& tmp, const std::string& path, int fd, bool durable,
                    std::string_view backup_suffix, unsigned mode) {
  ::fchmod(fd, static_cast<mode_t>(mode));
  if (durable && ::fsync(fd) < 0) {
    auto e = io_error("cannot fsync", tmp);
    ::close(fd);
    ::unlink(tmp.c_str());
    return e;
  }
  ::close(fd);
  if (!backup_suffix.empty()) {
    const std::string backup = path + std::string(backup_suffix);
    if (::link(path.c_str(), (backup + ".new").c_str()) == 0) {
      ::rename((backup + ".new").c_str(), backup.c_str());
    }
  }
  if (::rename(tmp.c_str(), path.c_str()) < 0) {
    auto e = io_error("cannot rename into place", path);
    ::unlink(tmp.c_str());
    return e;
  }
  return {};
}

}  // namespace

Status write_file_atomically(const std::string& path, std::string_view contents, bool durable,
                             std::string_view backup_suffix, unsigned mode) {
  std::string tmp = path + ".tmpXXXXXX";
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) return io_error("cannot create temporary file for", path);
  std::size_t off = 0;
  while (off < contents.size()) {
    ssize_t n = ::write(fd, contents.data() + off, contents.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      auto e = io_error("cannot write", tmp);
      ::close(fd);
      ::unlink(tmp.c_str());
      return e;
    }
    off += static_cast<std::size_t>(n);
  }
  return put_in_place(tmp, path, fd, durable, backup_suffix, mode);
}

Status write_file_atomically(const std::string& path,
                             const std::function<void(std::ostream&)>& write, bool durable,
                             std::string_view backup_suffix, unsigned mode) {
  std::string tmp = path + ".tmpXXXXXX";
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) return io_error("cannot create temporary file for", path);
  {
    // mkstemp made the name unique; the stream writes through its own descriptor
    // and the fd stays open for fchmod and fsync.
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (out) write(out);
    out.flush();
    if (!out) {
      auto e = io_error("cannot write", tmp);
      ::close(fd);
      ::unlink(tmp.c_str());
      return e;
    }
  }
  return put_in_place(tmp, path, fd, durable, backup_suffix, mode);
}

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(kErrFileWrite, "cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace ibsm
