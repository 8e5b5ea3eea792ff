#include "agent/fs.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "agent/errors.hpp"
#include "common/atomic_file.hpp"

namespace ibsm::agent {
namespace fs = std::filesystem;

RootFs::RootFs(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/')
    root_.pop_back();
}

std::string RootFs::real(const std::string& path) const {
  if (root_.empty() || root_ == "/") return path;
  return root_ + path;
}

std::optional<std::string> RootFs::read(const std::string& path) const {
  std::ifstream in(real(path), std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return ss.str();
}

std::vector<std::string> RootFs::list(const std::string& dir) const {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(real(dir), ec), end; !ec && it != end; it.increment(ec))
    out.push_back(it->path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

bool RootFs::exists(const std::string& path) const {
  std::error_code ec;
  return fs::exists(real(path), ec);
}

bool RootFs::is_dir(const std::string& path) const {
  std::error_code ec;
  return fs::is_directory(real(path), ec);
}

std::optional<unsigned> RootFs::mode(const std::string& path) const {
  std::error_code ec;
  auto st = fs::status(real(path), ec);
  if (ec || !fs::exists(st)) return std::nullopt;
  return static_cast<unsigned>(st.permissions()) & 07777u;
}

std::optional<std::string> RootFs::link_target(const std::string& path) const {
  std::error_code ec;
  auto t = fs::read_symlink(real(path), ec);
  if (ec) return std::nullopt;
  return t.string();
}

static Unexpected<Error> io_error(const std::string& what, const std::string& path) {
  return fail(kWriteFailed, what + " " + path + ": " + std::strerror(errno));
}

Status RootFs::write_atomic(const std::string& path, std::string_view content, unsigned mode) {
  std::string target = real(path);
  std::error_code ec;
  fs::create_directories(fs::path(target).parent_path(), ec);
  if (ec) return fail(kWriteFailed, "mkdir for " + target + ": " + ec.message());
  // The file's mode is part of the desired state (NM keyfiles: 0600); the temporary
  // file is 0600 until it is written.
  if (auto s = write_file_atomically(target, content, AtomicWriteOptions{.mode = mode}); !s)
    return fail(kWriteFailed, s.error().message);
  return {};
}

Status RootFs::write_attribute(const std::string& path, std::string_view value) {
  std::string target = real(path);
  // O_CREAT matters only in a tree; live sysfs/configfs attributes already exist.
  int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return io_error("open", target);
  ssize_t n = ::write(fd, value.data(), value.size());
  int saved = errno;
  ::close(fd);
  errno = saved;
  if (n != static_cast<ssize_t>(value.size())) return io_error("write", target);
  return {};
}

Status RootFs::make_dir(const std::string& path) {
  std::error_code ec;
  fs::create_directories(real(path), ec);
  if (ec) return fail(kWriteFailed, "mkdir " + real(path) + ": " + ec.message());
  return {};
}

Status RootFs::remove(const std::string& path) {
  std::error_code ec;
  fs::remove(real(path), ec);
  if (ec) return fail(kWriteFailed, "remove " + real(path) + ": " + ec.message());
  return {};
}

std::string trim(std::string_view s) {
  auto nl = s.find('\n');
  if (nl != std::string_view::npos) s = s.substr(0, nl);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r' || s.back() == '\t'))
    s.remove_suffix(1);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  return std::string(s);
}

}  // namespace ibsm::agent
