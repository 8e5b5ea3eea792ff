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

std::string dir_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// An unfinished temporary file: closed and removed unless it was put in place.
struct TempFile {
  std::string name;
  int fd = -1;
  bool placed = false;
  ~TempFile() {
    if (fd >= 0) ::close(fd);
    if (!placed && !name.empty()) ::unlink(name.c_str());
  }
};

Status make_temp(const std::string& path, TempFile& t) {
  t.name = path + ".tmpXXXXXX";
  t.fd = ::mkstemp(t.name.data());  // mode 0600 until put_in_place sets the one asked
  if (t.fd < 0) {
    t.name.clear();
    return io_error("cannot create temporary file for", path);
  }
  return {};
}

Status write_all(TempFile& t, std::string_view contents) {
  std::size_t off = 0;
  while (off < contents.size()) {
    const ssize_t n = ::write(t.fd, contents.data() + off, contents.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return io_error("cannot write", t.name);
    }
    off += static_cast<std::size_t>(n);
  }
  return {};
}

// Keeps the file at `path`, if there is one, as `backup`: a hard link renamed over
// the backup name (never through a link planted there), or where links are not
// allowed a copy written the same way.
Status keep_backup(const std::string& path, const std::string& backup, unsigned mode,
                   bool durable) {
  const std::string fresh = backup + ".new";
  if (::link(path.c_str(), fresh.c_str()) == 0) {
    if (::rename(fresh.c_str(), backup.c_str()) == 0) return {};
    auto e = io_error("cannot rename into place", backup);
    ::unlink(fresh.c_str());
    return e;
  }
  if (errno == ENOENT) return {};  // nothing to keep yet
  auto old = read_file(path);
  if (!old) return fail(kErrFileWrite, "cannot read " + path + " for the backup");
  return write_file_atomically(backup, *old, AtomicWriteOptions{.mode = mode, .durable = durable});
}

// The temporary file, written, goes into place: mode, fsync, backup, rename, and the
// directory's fsync.
Status put_in_place(TempFile& t, const std::string& path, const AtomicWriteOptions& how) {
  unsigned mode = how.mode;
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (how.keep_mode && exists) mode = st.st_mode & 07777;
  if (::fchmod(t.fd, static_cast<mode_t>(mode)) < 0) return io_error("cannot chmod", t.name);
  if (how.durable && ::fsync(t.fd) < 0) return io_error("cannot fsync", t.name);
  const int fd = t.fd;
  t.fd = -1;
  if (::close(fd) < 0) return io_error("cannot write", t.name);
  if (!how.backup_suffix.empty() && exists) {
    const std::string backup = path + std::string(how.backup_suffix);
    if (auto b = keep_backup(path, backup, st.st_mode & 07777, how.durable); !b) return b;
  }
  if (::rename(t.name.c_str(), path.c_str()) < 0) return io_error("cannot rename into place", path);
  t.placed = true;
  if (how.durable) {
    const int dfd = ::open(dir_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      ::fsync(dfd);  // best effort: the file is in place either way
      ::close(dfd);
    }
  }
  return {};
}

}  // namespace

Status write_file_atomically(const std::string& path, std::string_view contents,
                             const AtomicWriteOptions& how) {
  TempFile t;
  if (auto s = make_temp(path, t); !s) return s;
  if (auto s = write_all(t, contents); !s) return s;
  return put_in_place(t, path, how);
}

Status write_file_atomically(const std::string& path,
                             const std::function<void(std::ostream&)>& write,
                             const AtomicWriteOptions& how) {
  TempFile t;
  if (auto s = make_temp(path, t); !s) return s;
  {
    // mkstemp made the name unique; the stream writes through its own descriptor
    // and the fd stays open for fchmod and fsync.
    std::ofstream out(t.name, std::ios::binary | std::ios::trunc);
    if (out) write(out);
    out.flush();
    if (!out) return io_error("cannot write", t.name);
  }
  return put_in_place(t, path, how);
}

Status write_file_atomically(const std::string& path, std::string_view contents, bool durable,
                             std::string_view backup_suffix, unsigned mode) {
  return write_file_atomically(
      path, contents,
      AtomicWriteOptions{.mode = mode, .durable = durable, .backup_suffix = backup_suffix});
}

Status write_file_atomically(const std::string& path,
                             const std::function<void(std::ostream&)>& write, bool durable,
                             std::string_view backup_suffix, unsigned mode) {
  return write_file_atomically(
      path, write,
      AtomicWriteOptions{.mode = mode, .durable = durable, .backup_suffix = backup_suffix});
}

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(kErrFileWrite, "cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace ibsm
