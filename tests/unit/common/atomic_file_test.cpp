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

unsigned mode_of(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_mode & 07777 : 0xFFFFu;
}

// ibsm-part's edit of partitions.conf: an operator's chmod survives; a new file gets
// the mode asked.
TEST(AtomicFile, KeepModeKeepsTheModeOfTheFileReplaced) {
  testsupport::TempDir dir;
  const std::string path = dir.path() + "/partitions.conf";
  { std::ofstream(path) << "old\n"; }
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  ASSERT_TRUE(write_file_atomically(path, "new\n", AtomicWriteOptions{.keep_mode = true}).ok());
  EXPECT_EQ(mode_of(path), 0640u);
  EXPECT_EQ(contents_of(path), "new\n");

  const std::string fresh = dir.path() + "/fresh.conf";
  ASSERT_TRUE(
      write_file_atomically(fresh, "x\n", AtomicWriteOptions{.mode = 0600, .keep_mode = true})
          .ok());
  EXPECT_EQ(mode_of(fresh), 0600u);
}

TEST(AtomicFile, TheBackupKeepsTheOldContentsAndMode) {
  testsupport::TempDir dir;
  const std::string path = dir.path() + "/partitions.conf";
  { std::ofstream(path) << "old\n"; }
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  ASSERT_TRUE(write_file_atomically(path, "new\n",
                                    AtomicWriteOptions{.keep_mode = true, .backup_suffix = ".orig"})
                  .ok());
  EXPECT_EQ(contents_of(path + ".orig"), "old\n");
  EXPECT_EQ(mode_of(path + ".orig"), 0600u);
  EXPECT_EQ(contents_of(path), "new\n");
  EXPECT_EQ(mode_of(path), 0600u);
}

// The agent's NM keyfiles: the mode asked, whatever the umask.
TEST(AtomicFile, TheModeAskedIsExactUnderAnyUmask) {
  testsupport::TempDir dir;
  const std::string path = dir.path() + "/ib0.nmconnection";
  const mode_t old = ::umask(0077);
  const auto st = write_file_atomically(path, "[connection]\n", AtomicWriteOptions{.mode = 0644});
  ::umask(old);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(mode_of(path), 0644u);
}

TEST(AtomicFile, AFailedRenameNamesThePathAndLeavesNoTemporaryFile) {
  testsupport::TempDir dir;
  const std::string path = dir.path() + "/taken";
  ASSERT_EQ(::mkdir(path.c_str(), 0755), 0);  // a directory where the file should go
  { std::ofstream(path + "/inside") << "x"; }
  const auto st = write_file_atomically(path, "new\n", AtomicWriteOptions{});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().id, kErrFileWrite);
  EXPECT_NE(st.error().message.find(path), std::string::npos) << st.error().message;
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path()))
    ++entries;
  EXPECT_EQ(entries, 1u);  // only the directory: the temporary file is gone
}

}  // namespace
}  // namespace ibsm
