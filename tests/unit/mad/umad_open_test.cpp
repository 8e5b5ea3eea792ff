// Opening the SM's port when the kernel refuses a step (OpenSM issue 37: "Unable to
// register class 129" and two more unrelated-looking errors): each refusal is ONE
// error with its own ID, naming the device and port, the errno and the likely cause.
// A fake UmadApi refuses each step in turn.
#include <gtest/gtest.h>

#include <cerrno>
#include <map>

#include "mad/errors.hpp"
#include "mad/umad_transport.hpp"

namespace ibsm::mad {
namespace {

class RefusingUmad final : public UmadApi {
 public:
  // Negative errno per step; 0: the step succeeds.
  int init_rc = 0, open_rc = 0, issm_path_rc = 0, issm_rc = 0;
  std::map<int, int> register_rc;  // by management class
  std::vector<UmadPort> listed;
  int open_fds = 0, agents = 0, issm_fds = 0;

  RefusingUmad() {
    UmadPort p;
    p.port.ca_name = "mlx5_0";
    p.port.port_num = 1;
    p.port.port_guid = 0x0002c90300001234;
    p.port.phys_state = 5;
    p.link_layer = "InfiniBand";
    listed.push_back(p);
  }
  int init() override { return init_rc; }
  std::vector<UmadPort> ports() override { return listed; }
  int open_port(const std::string&, int) override {
    if (open_rc < 0) return open_rc;
    ++open_fds;
    return 7;
  }
  int register_agent(int, int mgmt_class, int, int, long*) override {
    auto it = register_rc.find(mgmt_class);
    if (it != register_rc.end()) return it->second;
    return agents++;
  }
  int issm_path(const std::string&, int, std::string& path) override {
    path = "/dev/infiniband/issm0";
    return issm_path_rc;
  }
  int open_issm(const std::string&) override {
    if (issm_rc < 0) return issm_rc;
    ++issm_fds;
    return 9;
  }
  void unregister_agent(int, int) override { --agents; }
  void close_port(int) override { --open_fds; }
  void close_issm(int) override { --issm_fds; }
  bool simulated() const override { return false; }
};

void expect_names(const Error& e, ErrorId id, std::initializer_list<const char*> parts) {
  EXPECT_EQ(e.id, id) << e.message;
  for (const char* p : parts)
    EXPECT_NE(e.message.find(p), std::string::npos) << "'" << p << "' missing in: " << e.message;
}

TEST(UmadOpen, AllStepsGrantedOpensAndReleasesEverything) {
  RefusingUmad api;
  {
    auto t = UmadTransport::open(0, api);
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ((*t)->local_port().ca_name, "mlx5_0");
    EXPECT_EQ((*t)->issm_status(), "IsSM raised through /dev/infiniband/issm0");
    EXPECT_FALSE((*t)->issm_refused());
    EXPECT_EQ(api.agents, 3);  // SMI directed, SMI LID-routed, SA
  }
  EXPECT_EQ(api.agents, 0);
  EXPECT_EQ(api.open_fds, 0);
  EXPECT_EQ(api.issm_fds, 0);
}

TEST(UmadOpen, ModuleNotLoaded) {
  RefusingUmad api;
  api.listed.clear();  // no umad devices at all
  auto t = UmadTransport::open(0, api);
  ASSERT_FALSE(t.ok());
  expect_names(t.error(), kErrUmadUnavailable, {"ib_umad", "not loaded"});
}

TEST(UmadOpen, DeviceRefusedForPermission) {
  RefusingUmad api;
  api.open_rc = -EACCES;
  auto t = UmadTransport::open(0, api);
  ASSERT_FALSE(t.ok());
  expect_names(t.error(), kErrUmadOpen, {"mlx5_0 port 1", "EACCES", "no permission"});
}

TEST(UmadOpen, DeviceMissing) {
  RefusingUmad api;
  api.open_rc = -ENOENT;
  auto t = UmadTransport::open(0, api);
  ASSERT_FALSE(t.ok());
  expect_names(t.error(), kErrUmadOpen, {"mlx5_0 port 1", "ENOENT", "ib_umad"});
}

// OpenSM issue 37's "Unable to register class 129 version 1".
TEST(UmadOpen, ClassRegistrationRefusedNamesClassAndHolder) {
  RefusingUmad api;
  api.register_rc[0x81] = -EINVAL;
  auto t = UmadTransport::open(0, api);
  ASSERT_FALSE(t.ok());
  expect_names(
      t.error(), kErrClassRegister,
      {"class 129 (0x81)", "mlx5_0 port 1", "EINVAL", "another SM or MAD agent", "kernel refuses"});
  EXPECT_EQ(api.open_fds, 0);  // what was opened is closed again
}

TEST(UmadOpen, SaClassRefusedIsTheSameError) {
  RefusingUmad api;
  api.register_rc[0x03] = -EBUSY;
  auto t = UmadTransport::open(0, api);
  ASSERT_FALSE(t.ok());
  expect_names(t.error(), kErrClassRegister, {"class 3 (0x03", "EBUSY", "another SM"});
  EXPECT_EQ(api.agents, 0);
}

TEST(UmadOpen, IssmHeldByAnotherSmStops) {
  RefusingUmad api;
  api.issm_rc = -EAGAIN;
  auto t = UmadTransport::open(0, api);
  ASSERT_FALSE(t.ok());
  expect_names(t.error(), kErrIssm,
               {"issm0", "mlx5_0 port 1", "EAGAIN", "another subnet manager holds IsSM"});
}

TEST(UmadOpen, IssmRefusedOtherwiseRunsWithoutIsSmAndSaysSo) {
  RefusingUmad api;
  api.issm_rc = -EIO;
  auto t = UmadTransport::open(0, api);
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE((*t)->issm_refused());
  EXPECT_NE((*t)->issm_status().find("IBSM-1014"), std::string::npos) << (*t)->issm_status();
  EXPECT_NE((*t)->issm_status().find("EIO"), std::string::npos);
}

TEST(UmadOpen, EthernetPortIsRefusedByNameAndDefaultSkipsIt) {
  RefusingUmad api;
  UmadPort roce = api.listed.front();
  roce.port.ca_name = "mlx5_1";
  roce.port.port_guid = 0x0002c90300005678;
  roce.link_layer = "Ethernet";
  api.listed.insert(api.listed.begin(), roce);
  auto t = UmadTransport::open(0x0002c90300005678, api);
  ASSERT_FALSE(t.ok());
  expect_names(t.error(), kErrPortNotInfiniband, {"mlx5_1 port 1", "Ethernet", "-g"});
  auto d = UmadTransport::open(0, api);  // the default takes the InfiniBand port
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ((*d)->local_port().ca_name, "mlx5_0");
  api.listed.back().link_layer = "IB";  // as ibsim's umad2sim names it
  EXPECT_TRUE(UmadTransport::open(0x0002c90300001234, api).ok());
}

TEST(UmadOpen, LikelyCausesByErrno) {
  EXPECT_NE(likely_cause(UmadStep::kOpenDevice, ENODEV).find("ib_umad"), std::string::npos);
  EXPECT_NE(likely_cause(UmadStep::kIssm, EPERM).find("no permission"), std::string::npos);
  EXPECT_NE(likely_cause(UmadStep::kRegisterClass, ENOMEM).find("kernel refuses"),
            std::string::npos);
  EXPECT_TRUE(issm_refusal_fatal(EBUSY));
  EXPECT_FALSE(issm_refusal_fatal(EIO));
}

}  // namespace
}  // namespace ibsm::mad
