// common/atomic_file: a rewrite never goes through a name planted where the file lives
// (docs/security.md, "Files the SM writes").
#include "common/atomic_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/temp_dir.hpp"

namespace ibsm {
namespace {

std::string contents_of(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(AtomicFile, APlantedSymlinkIsReplacedNotFollowed) {
  testsupport::TempDir dir;
  const std::string victim = dir.path() + "/victim";
  const std::string path = dir.path() + "/guid2lid";
  { std::ofstream(victim) << "precious\n"; }
  ASSERT_EQ(::symlink(victim.c_str(), path.c_str()), 0);

  ASSERT_TRUE(write_file_atomically(path, "0x0002c90300000001 1 1\n").ok());

  EXPECT_EQ(contents_of(victim), "precious\n");
  struct stat st {};
  ASSERT_EQ(::lstat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(contents_of(path), "0x0002c90300000001 1 1\n");
}

TEST(AtomicFile, APlantedSymlinkAtTheBackupNameIsReplacedNotFollowed) {
  testsupport::TempDir dir;
  const std::string victim = dir.path() + "/victim";
  const std::string path = dir.path() + "/opensm-sa.dump";
  { std::ofstream(victim) << "precious\n"; }
  { std::ofstream(path) << "old\n"; }
  ASSERT_EQ(::symlink(victim.c_str(), (path + ".bak").c_str()), 0);

  ASSERT_TRUE(write_file_atomically(path, "new\n", true, ".bak").ok());

  EXPECT_EQ(contents_of(victim), "precious\n");
  EXPECT_EQ(contents_of(path + ".bak"), "old\n");
  EXPECT_EQ(contents_of(path), "new\n");
}

TEST(AtomicFile, KeyFilesGetTheModeAsked) {
  testsupport::TempDir dir;
  const std::string path = dir.path() + "/guid2mkey";
  ASSERT_TRUE(write_file_atomically(path, "0x1 0x2\n", true, {}, 0600).ok());
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

}  // namespace
}  // namespace ibsm
