#include "tree.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ibsm::agent::testing {
namespace fs = std::filesystem;

// $TMPDIR if set, else /dev/shm when usable: these trees are many tiny files, and
// on tmpfs the whole suite runs ten times faster than on a disk-backed /tmp.
static fs::path temp_base() {
  if (const char* t = std::getenv("TMPDIR"); t && *t) return t;
  if (::access("/dev/shm", W_OK | X_OK) == 0) return "/dev/shm";
  return fs::temp_directory_path();
}

static std::string make_temp_dir() {
  std::string tmpl = (temp_base() / "ibsm-agent-test-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  return tmpl;
}

Tree::Tree() : root_(make_temp_dir()), fs_(root_) {}

Tree::~Tree() {
  std::error_code ec;
  fs::remove_all(root_, ec);
}

void Tree::file(const std::string& path, const std::string& content) {
  fs::create_directories(fs::path(root_ + path).parent_path());
  std::ofstream(root_ + path, std::ios::binary) << content;
}

void Tree::dir(const std::string& path) {
  fs::create_directories(root_ + path);
}

void Tree::symlink(const std::string& path, const std::string& target) {
  fs::create_directories(fs::path(root_ + path).parent_path());
  fs::create_symlink(target, root_ + path);
}

std::string Tree::read(const std::string& path) const {
  std::ifstream in(root_ + path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace ibsm::agent::testing
