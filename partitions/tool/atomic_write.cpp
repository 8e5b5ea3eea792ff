#include "partitions/tool/atomic_write.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "partitions/errors.hpp"

namespace ibsm::partitions {
namespace {

std::string dir_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

Status write_replace(const std::string& path, const std::string& content, mode_t mode) {
  std::string tmpl = path + ".tmpXXXXXX";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  const int fd = ::mkstemp(name.data());
  if (fd < 0)
    return fail(kWriteFailed,
                "cannot create a temporary file next to " + path + ": " + std::strerror(errno));
  const std::string tmp(name.data());
  std::size_t done = 0;
  bool ok = true;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      ok = false;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  const int saved = errno;
  ok = ok && ::fchmod(fd, mode) == 0 && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(ok ? errno : saved);
    ::unlink(tmp.c_str());
    return fail(kWriteFailed, "cannot write " + path + ": " + why);
  }
  const int dfd = ::open(dir_of(path).c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return {};
}

}  // namespace

Status write_file_atomically(const std::string& path, const std::string& content,
                             const std::string& backup_suffix) {
  mode_t mode = 0644;
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists) mode = st.st_mode & 07777;
  if (exists && !backup_suffix.empty()) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream old;
    old << in.rdbuf();
    if (!in) return fail(kWriteFailed, "cannot read " + path + " for the backup");
    Status b = write_replace(path + backup_suffix, old.str(), mode);
    if (!b.ok()) return b;
  }
  return write_replace(path, content, mode);
}

}  // namespace ibsm::partitions
