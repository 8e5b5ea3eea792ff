// LiveKernel's commands (iproute2 semantics), against a recording CommandRunner.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent/errors.hpp"
#include "agent/kernel.hpp"
#include "tree.hpp"

namespace ibsm::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class RecordingRunner final : public CommandRunner {
 public:
  CommandResult run(const std::vector<std::string>& argv) const override {
    calls.push_back(argv);
    return next;
  }
  mutable std::vector<std::vector<std::string>> calls;
  CommandResult next{0, ""};
};

TEST(LiveKernel, IpoibChildUsesRtnetlinkWithTheNormalisedPKey) {
  testing::Tree t;
  RecordingRunner runner;
  LiveKernel k(t.fs(), runner);
  ASSERT_TRUE(k.create_ipoib_child("ib0", "ib0.8002", 0x0002, "connected"));
  ASSERT_TRUE(k.set_ipoib_mode("ib0", "datagram"));
  ASSERT_TRUE(k.set_mtu("ib0", 2044));
  ASSERT_TRUE(k.add_address("ib0.8002", "10.2.0.5/16"));
  ASSERT_TRUE(k.add_rdma_link("rxe0", "rxe", "eth1"));
  ASSERT_TRUE(k.load_module("rdma_rxe"));
  ASSERT_TRUE(k.delete_link("ib0.8002"));
  EXPECT_THAT(
      runner.calls,
      ElementsAre(
          ElementsAre("ip", "link", "add", "link", "ib0", "name", "ib0.8002", "type", "ipoib",
                      "pkey", "0x8002", "mode", "connected"),
          ElementsAre("ip", "link", "set", "dev", "ib0", "type", "ipoib", "mode", "datagram"),
          ElementsAre("ip", "link", "set", "dev", "ib0", "mtu", "2044"),
          ElementsAre("ip", "addr", "replace", "10.2.0.5/16", "dev", "ib0.8002"),
          ElementsAre("rdma", "link", "add", "rxe0", "type", "rxe", "netdev", "eth1"),
          ElementsAre("modprobe", "rdma_rxe"),
          ElementsAre("ip", "link", "del", "dev", "ib0.8002")));
}

TEST(LiveKernel, UnknownDeviceTypeMeansIpoibIsNotLoaded) {
  testing::Tree t;
  RecordingRunner runner;
  runner.next = {2, "Error: Unknown device type.\n"};
  LiveKernel k(t.fs(), runner);
  auto s = k.create_ipoib_child("ib0", "ib0.8002", 0x8002, "datagram");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().id, kKernelSupportMissing);
  EXPECT_THAT(s.error().message, HasSubstr("ib_ipoib is not loaded"));
  runner.next = {1, "RTNETLINK answers: Operation not permitted\n"};
  auto p = k.set_mtu("ib0", 2044);
  EXPECT_EQ(p.error().id, kCommandFailed);
  EXPECT_THAT(p.error().message, HasSubstr("exit 1: RTNETLINK answers: Operation not permitted"));
}

TEST(LiveKernel, AddressesComeFromIpAddrShow) {
  EXPECT_THAT(
      parse_ip_addr_output(
          "5: ib0    inet 10.0.0.5/16 brd 10.0.255.255 scope global ib0\\       valid_lft forever\n"
          "5: ib0    inet6 fe80::202:c903:0:1234/64 scope link \\       valid_lft forever\n"),
      ElementsAre("10.0.0.5/16", "fe80::202:c903:0:1234/64"));
}

TEST(ProcessRunner, CapturesOutputAndExitStatus) {
  ProcessRunner r;
  auto ok = r.run({"sh", "-c", "echo hello; echo oops >&2; exit 3"});
  EXPECT_EQ(ok.status, 3);
  EXPECT_THAT(ok.output, HasSubstr("hello"));
  EXPECT_THAT(ok.output, HasSubstr("oops"));
  EXPECT_EQ(r.run({"/nonexistent/ibsm-tool"}).status, 127);
}

}  // namespace
}  // namespace ibsm::agent
