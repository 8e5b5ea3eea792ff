// rest/state_file.hpp: the API's state survives a restart byte for byte, and a corrupt
// file is refused with file:line and its ID.
#include "rest/state_file.hpp"

#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>

#include "rest/errors.hpp"
#include "rest/handler.hpp"

namespace ibsm::rest {
namespace {

ApiState sample() {
  ApiState s;
  s.partitions[5] = {true,
                     {{0x0200000000000001, {Membership::kFull, true}},
                      {0x0200000000000002, {Membership::kLimited, false}}}};
  s.partitions[0x7ffe] = {false, {{0xf452140300f1b2c1, {Membership::kFull, false}}}};
  return s;
}

TEST(StateFile, FormatIsOneEntryALineSorted) {
  const std::string text = format_state(sample());
  EXPECT_NE(text.find("ibsm-rest-state 1\n"
                      "partition 0x0005 ip_over_ib=1\n"
                      "member 0x0005 0x0200000000000001 full index0=1\n"
                      "member 0x0005 0x0200000000000002 limited index0=0\n"
                      "partition 0x7ffe ip_over_ib=0\n"
                      "member 0x7ffe 0xf452140300f1b2c1 full index0=0\n"),
            std::string::npos)
      << text;
}

TEST(StateFile, RoundTripThroughTheFile) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("rest_state_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "ibsm-rest.state").string();
  // Missing: the first start, an empty state.
  auto empty = load_state(path);
  ASSERT_TRUE(empty.ok()) << empty.error().message;
  EXPECT_TRUE(empty->partitions.empty());
  // What the API did, saved and read back as a restarted ibsm would.
  ApiState state;
  const AdminPartitions admin;
  ASSERT_EQ(
      handle({"POST", "/ufmRest/resources/pkeys",
              R"({"pkey": "0x0005", "index0": true, "ip_over_ib": true, "membership": "full", )"
              R"("guids": ["0200000000000001","0200000000000002","0200000000000003"]})",
              "admin"},
             admin, state, {"x"})
          .status,
      200);
  ASSERT_TRUE(save_state(path, state).ok());
  auto back = load_state(path);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, state);
  ASSERT_TRUE(save_state(path, sample()).ok());
  EXPECT_EQ(*load_state(path), sample());
  std::filesystem::remove_all(dir);
}

TEST(StateFile, CommentsBlankLinesAndAnEmptyPartition) {
  auto s =
      parse_state("# hi\n\nibsm-rest-state 1\n  # indented\npartition 0x0009 ip_over_ib=0\n", "f");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_TRUE(s->partitions.empty());
}

void expect_bad(std::string_view text, std::string_view where_and_what) {
  auto s = parse_state(text, "api.state");
  ASSERT_FALSE(s.ok()) << text;
  EXPECT_EQ(s.error().id, kErrRestStateFile);
  EXPECT_NE(s.error().message.find(where_and_what), std::string::npos) << s.error().message;
}

TEST(StateFile, CorruptFilesNameFileAndLine) {
  expect_bad("", "api.state: no \"ibsm-rest-state");
  expect_bad("partition 0x0005 ip_over_ib=1\n", "api.state:1: the first entry");
  expect_bad("ibsm-rest-state 2\n", "api.state:1: version 2");
  expect_bad("ibsm-rest-state 1\nmember 0x0005 0x0200000000000001 full index0=1\n",
             "api.state:2: member of partition 0x0005, which no line above declares");
  const std::string head = "ibsm-rest-state 1\npartition 0x0005 ip_over_ib=1\n";
  expect_bad(head + "partition 0x0005 ip_over_ib=1\n",
             "api.state:3: partition 0x0005 is listed twice");
  expect_bad(head + "partition 0x0000 ip_over_ib=1\n", "api.state:3: pkey");
  expect_bad(head + "partition 0x0006 ip_over_ib=yes\n", "api.state:3: \"ip_over_ib=yes\"");
  expect_bad(head +
                 "member 0x0005 0x0200000000000001 full index0=1\n"
                 "member 0x0005 0x0200000000000001 limited index0=0\n",
             "api.state:4: member 0x0200000000000001 of 0x0005 is listed twice");
  expect_bad(head + "member 0x0005 0200000000000001 full index0=1\n",
             "api.state:3: \"0200000000000001\"");
  expect_bad(head + "member 0x0005 0x020000000000000z full index0=1\n", "api.state:3: guid");
  expect_bad(head + "member 0x0005 0x0200000000000001 both index0=1\n", "api.state:3: \"both\"");
  expect_bad(head + "member 0x0005 0x0200000000000001 full\n", "api.state:3: expected");
  expect_bad(head + "member 0x0005 0x0200000000000001 full index0=2\n",
             "api.state:3: \"index0=2\"");
  expect_bad(head + "guid 0x0200000000000001\n", "api.state:3: unknown entry \"guid\"");
}

TEST(StateFile, UnreadableFileIsAnError) {
  auto s = load_state("/proc/self/no/such/dir/x");
  // A missing file under a missing directory is still "missing": the empty state.
  EXPECT_TRUE(s.ok());
  auto d = load_state("/");  // a directory: not readable as a file
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().id, kErrRestStateFile);
}

TEST(Merge, AdminPartitionsAndApiState) {
  AdminPartitions admin;
  admin[0x7fff] = {"Default", true, {{0x10, {Membership::kLimited, false}}}};
  admin[5] = {"storage", false, {{0x0200000000000002, {Membership::kLimited, false}}}};
  const Effective e = merge(admin, sample());
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e.at(0x7fff).members.size(), 1u);
  EXPECT_EQ(e.at(5).name, "storage");
  EXPECT_FALSE(e.at(5).ip_over_ib);
  EXPECT_EQ(e.at(5).members.at(0x0200000000000002),
            (EffectiveMember{{Membership::kLimited, false}, Source::kAdmin}));
  EXPECT_EQ(e.at(5).members.at(0x0200000000000001),
            (EffectiveMember{{Membership::kFull, true}, Source::kApi}));
  EXPECT_TRUE(e.at(0x7ffe).api_owned);
  EXPECT_EQ(e.at(0x7ffe).name, "api_0x7ffe");
}

}  // namespace
}  // namespace ibsm::rest
