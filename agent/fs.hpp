// The filesystem seam. Every sysfs, configfs, /proc and /etc access of the agent
// goes through an Fs with host-style absolute paths ("/sys/class/net"); RootFs
// maps them under a root directory, so `--root DIR` and the unit tests run the
// whole agent against a tree instead of the live system.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace ibsm::agent {

class Fs {
 public:
  virtual ~Fs() = default;
  // File content, or nothing if the file is missing or unreadable.
  virtual std::optional<std::string> read(const std::string& path) const = 0;
  // Entry names of a directory, sorted; empty if it does not exist.
  virtual std::vector<std::string> list(const std::string& dir) const = 0;
  virtual bool exists(const std::string& path) const = 0;
  virtual bool is_dir(const std::string& path) const = 0;
  // Permission bits of a file, if it exists.
  virtual std::optional<unsigned> mode(const std::string& path) const = 0;
  // Target of a symlink, if `path` is one.
  virtual std::optional<std::string> link_target(const std::string& path) const = 0;

  // Replaces a regular file atomically (temporary file, fsync, rename), creating
  // missing parent directories. Readers never see a half-written file.
  virtual Status write_atomic(const std::string& path, std::string_view content, unsigned mode) = 0;
  // Writes a kernel attribute (sysfs, configfs) in place: these files cannot be renamed over.
  virtual Status write_attribute(const std::string& path, std::string_view value) = 0;
  virtual Status make_dir(const std::string& path) = 0;
  virtual Status remove(const std::string& path) = 0;
};

class RootFs final : public Fs {
 public:
  explicit RootFs(std::string root);
  const std::string& root() const { return root_; }
  // The real path of a host-style path.
  std::string real(const std::string& path) const;

  std::optional<std::string> read(const std::string& path) const override;
  std::vector<std::string> list(const std::string& dir) const override;
  bool exists(const std::string& path) const override;
  bool is_dir(const std::string& path) const override;
  std::optional<unsigned> mode(const std::string& path) const override;
  std::optional<std::string> link_target(const std::string& path) const override;
  Status write_atomic(const std::string& path, std::string_view content, unsigned mode) override;
  Status write_attribute(const std::string& path, std::string_view value) override;
  Status make_dir(const std::string& path) override;
  Status remove(const std::string& path) override;

 private:
  std::string root_;
};

// First line of a sysfs-style value without the trailing newline/space.
std::string trim(std::string_view s);

}  // namespace ibsm::agent
