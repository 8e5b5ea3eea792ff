// A temporary directory that tests fill with fake sysfs/configfs/etc files and
// hand to the agent as its root. Removed when the test ends.
#pragma once

#include <string>

#include "agent/fs.hpp"

namespace ibsm::agent::testing {

class Tree {
 public:
  Tree();
  ~Tree();
  Tree(const Tree&) = delete;
  Tree& operator=(const Tree&) = delete;

  const std::string& root() const { return root_; }
  RootFs& fs() { return fs_; }
  // Writes `content` at host-style `path` under the root, creating parents.
  void file(const std::string& path, const std::string& content);
  void dir(const std::string& path);
  void symlink(const std::string& path, const std::string& target);
  std::string read(const std::string& path) const;

 private:
  std::string root_;
  RootFs fs_;
};

}  // namespace ibsm::agent::testing
