// ibsm-part on temporary files: edits keep untouched text byte for byte, writes are
// atomic with a backup, --dry-run prints a diff, plan reads a fabric snapshot.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "partitions/parser.hpp"
#include "partitions/tool/commands.hpp"
#include "test_util.hpp"

namespace ibsm::partitions {
namespace {

namespace fs = std::filesystem;

class Tool : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ibsm-part-test.XXXXXX";
    dir_ = mkdtemp(tmpl);
    path_ = dir_ + "/partitions.conf";
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const std::string& text) { std::ofstream(path_, std::ios::binary) << text; }
  std::string read(const std::string& p) const {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  int run(std::vector<std::string> args) {
    out_.str("");
    err_.str("");
    args.insert(args.begin(), {"-f", path_});
    return run_ibsm_part(args, out_, err_);
  }

  std::string dir_, path_;
  std::ostringstream out_, err_;
};

const std::string kFile =
    "# site partitions\n"
    "Default=0x7fff, ipoib : ALL=full ;   # everyone\n"
    "\n"
    "Storage = 0x0010 ,ipoib,mtu=5:\n"
    "        0x0002c903000a1b2c=full,   # filer 1\n"
    "        0x0002c903000a1b2d  ;\n"
    "# trailing comment\n";

TEST_F(Tool, CheckReportsOkAndErrorsWithPositions) {
  write(kFile);
  EXPECT_EQ(run({"check"}), 0) << out_.str();
  EXPECT_NE(out_.str().find("ok, 2 statement(s)"), std::string::npos);
  write("A=1: ALL;\nB=2 ALL;\n");
  EXPECT_EQ(run({"check"}), 1);
  EXPECT_NE(out_.str().find(":2:1: error IBSM-4001"), std::string::npos) << out_.str();
}

TEST_F(Tool, ListAndShow) {
  write(kFile);
  EXPECT_EQ(run({"list"}), 0);
  EXPECT_NE(out_.str().find("Storage"), std::string::npos);
  EXPECT_NE(out_.str().find("0x0010"), std::string::npos);
  EXPECT_NE(out_.str().find("2 (1 full, 1 limited)"), std::string::npos) << out_.str();
  EXPECT_NE(out_.str().find("mtu=4096"), std::string::npos) << out_.str();
  EXPECT_EQ(run({"show", "0x10"}), 0);
  EXPECT_NE(out_.str().find("ff12:401b:8010::ffff:ffff (IPoIB broadcast)"), std::string::npos)
      << out_.str();
  EXPECT_EQ(run({"show", "Nope"}), 1);
}

TEST_F(Tool, AddMemberKeepsEverythingElse) {
  write(kFile);
  EXPECT_EQ(run({"add-member", "Storage", "0x0002c903000a1b2e=full"}), 0) << err_.str();
  const std::string after = read(path_);
  const std::string expect =
      "# site partitions\n"
      "Default=0x7fff, ipoib : ALL=full ;   # everyone\n"
      "\n"
      "Storage = 0x0010 ,ipoib,mtu=5:\n"
      "        0x0002c903000a1b2c=full,   # filer 1\n"
      "        0x0002c903000a1b2d, 0x0002c903000a1b2e=full  ;\n"
      "# trailing comment\n";
  EXPECT_EQ(after, expect);
  EXPECT_EQ(read(path_ + ".bak"), kFile);
}

TEST_F(Tool, AddMemberChangesAnExistingEntry) {
  write(kFile);
  EXPECT_EQ(run({"add-member", "0x10", "0x2c903000a1b2d=both"}), 0) << err_.str();
  EXPECT_NE(read(path_).find("        0x0002c903000a1b2d=both  ;\n"), std::string::npos)
      << read(path_);
  EXPECT_EQ(run({"add-member", "0x10", "0x2c903000a1b2d"}), 0) << err_.str();
  EXPECT_NE(read(path_).find("        0x0002c903000a1b2d  ;\n"), std::string::npos) << read(path_);
}

TEST_F(Tool, RemoveMember) {
  write(kFile);
  EXPECT_EQ(run({"remove-member", "Storage", "0x0002c903000a1b2d"}), 0) << err_.str();
  const std::string after = read(path_);
  EXPECT_EQ(after.find("1b2d"), std::string::npos);
  EXPECT_NE(after.find("0x0002c903000a1b2c=full   # filer 1\n        ;\n"), std::string::npos)
      << after;
  EXPECT_TRUE(parse_partitions(after).ok());
  EXPECT_EQ(run({"remove-member", "Storage", "0x99"}), 1);
}

TEST_F(Tool, AddAndRemovePartition) {
  write(kFile);
  EXPECT_EQ(run({"add", "Compute=0x0020, ipoib, rate=100Gb", "ALL_CAS=full"}), 0) << err_.str();
  EXPECT_EQ(read(path_), kFile + "Compute=0x0020, ipoib, rate=100Gb: ALL_CAS=full;\n");
  EXPECT_EQ(run({"add", "Other=0x0020", "ALL"}), 1);  // P_Key taken
  EXPECT_NE(err_.str().find("IBSM-4402"), std::string::npos);
  EXPECT_EQ(run({"remove", "Storage"}), 0) << err_.str();
  EXPECT_EQ(read(path_),
            "# site partitions\n"
            "Default=0x7fff, ipoib : ALL=full ;   # everyone\n"
            "\n"
            "# trailing comment\n"
            "Compute=0x0020, ipoib, rate=100Gb: ALL_CAS=full;\n");
  EXPECT_EQ(run({"remove", "Default"}), 1);
}

TEST_F(Tool, SetAndUnsetFlags) {
  write(kFile);
  EXPECT_EQ(run({"set", "Storage", "mtu=4096", "rate=7"}), 0) << err_.str();
  EXPECT_NE(read(path_).find("Storage = 0x0010 ,ipoib,mtu=4096, rate=7:\n"), std::string::npos)
      << read(path_);
  EXPECT_EQ(run({"set", "Storage", "--unset", "ipoib"}), 0) << err_.str();
  EXPECT_NE(read(path_).find("Storage = 0x0010 ,mtu=4096, rate=7:\n"), std::string::npos)
      << read(path_);
  EXPECT_EQ(run({"set", "Storage", "bogus=1"}), 1);
  EXPECT_EQ(run({"set", "Storage", "mtu=1500"}), 1);
}

TEST_F(Tool, DryRunPrintsADiffAndWritesNothing) {
  write(kFile);
  EXPECT_EQ(run({"--dry-run", "set", "Default", "mtu=5"}), 0) << err_.str();
  EXPECT_EQ(read(path_), kFile);
  EXPECT_FALSE(fs::exists(path_ + ".bak"));
  EXPECT_NE(out_.str().find("-Default=0x7fff, ipoib : ALL=full ;   # everyone\n"
                            "+Default=0x7fff, ipoib, mtu=5 : ALL=full ;   # everyone\n"),
            std::string::npos)
      << out_.str();
}

TEST_F(Tool, WritesAreAtomicAndKeepTheMode) {
  write(kFile);
  ::chmod(path_.c_str(), 0640);
  EXPECT_EQ(run({"--no-backup", "fmt"}), 0) << err_.str();
  struct stat st {};
  ASSERT_EQ(::stat(path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  EXPECT_FALSE(fs::exists(path_ + ".bak"));
  for (const auto& e : fs::directory_iterator(dir_))  // no temporary file left behind
    EXPECT_EQ(e.path().filename(), "partitions.conf");
}

TEST_F(Tool, FmtIsIdempotentAndRefusesBrokenFiles) {
  write(kFile);
  EXPECT_EQ(run({"fmt"}), 0);
  const std::string once = read(path_);
  EXPECT_EQ(once,
            "# site partitions\n"
            "Default=0x7fff, ipoib: ALL=full; # everyone\n"
            "\n"
            "Storage=0x0010, ipoib, mtu=5:\n"
            "        0x0002c903000a1b2c=full, # filer 1\n"
            "        0x0002c903000a1b2d;\n"
            "# trailing comment\n");
  EXPECT_EQ(run({"fmt"}), 0);
  EXPECT_EQ(read(path_), once);
  EXPECT_NE(out_.str().find("unchanged"), std::string::npos);
  write("broken\n");
  EXPECT_EQ(run({"fmt"}), 1);
  EXPECT_EQ(read(path_), "broken\n");
}

TEST_F(Tool, EditsRefuseFilesWithErrors) {
  write("A=1: xyz;\n");
  EXPECT_EQ(run({"add-member", "A", "ALL"}), 1);
  EXPECT_NE(err_.str().find("fix them first"), std::string::npos);
}

TEST_F(Tool, PlanShowsGainsAndLosses) {
  write("Default=0x7fff: ALL=full;\nP2=0x0002: ALL=full;\nLim=0x0003: 0x0000000000100001;\n");
  EXPECT_EQ(run({"plan", "--fabric", test::data_path("net.2sw2path4hca.snapshot")}), 0)
      << err_.str();
  const std::string o = out_.str();
  EXPECT_NE(o.find("Hca1 node 0x0000000000100000 port 1 guid 0x0000000000100001\n"
                   "  + 0x8002 full (P2)\n"
                   "  + 0x0003 limited (Lim)\n"
                   "  P_Key blocks to send: 0\n"),
            std::string::npos)
      << o;
  EXPECT_NE(o.find("enforcement: off -> in,out"), std::string::npos);
  EXPECT_NE(o.find("10 port(s) change"), std::string::npos) << o;
  write("Default=0x7fff: ALL=limited;\n");
  EXPECT_EQ(run({"plan", "--fabric", test::data_path("net.2sw2path4hca.snapshot"), "--part-enforce",
                 "off"}),
            0);
  EXPECT_NE(out_.str().find("  ~ 0x7fff (Default) full -> limited\n"), std::string::npos)
      << out_.str();
}

TEST_F(Tool, UsageErrors) {
  EXPECT_EQ(run({}), 2);
  EXPECT_EQ(run({"frobnicate"}), 2);
  EXPECT_EQ(run({"--part-enforce", "sideways", "list"}), 2);
  EXPECT_EQ(run({"plan"}), 2);
}

}  // namespace
}  // namespace ibsm::partitions
