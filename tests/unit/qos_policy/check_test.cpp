// `ibsm --check-qos-policy`: prints the policy and the rule each tuple matches; a
// broken policy exits 1 with file:line:column.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "qos_policy/check.hpp"

namespace ibsm::qos_policy {
namespace {

std::string temp_file(const std::string& text) {
  char name[] = "/tmp/qos_policy_check_XXXXXX";
  const int fd = mkstemp(name);
  EXPECT_GE(fd, 0);
  std::ofstream(name) << text;
  return name;
}

TEST(QosPolicyCheck, PrintsPolicyAndMatches) {
  const std::string file = temp_file(R"(port-groups
 port-group
  name: storage
  port-guid: 0x10
 end-port-group
end-port-groups
qos-levels
 qos-level
  name: DEFAULT
  sl: 0
 end-qos-level
 qos-level
  name: fast
  sl: 5
  mtu-limit: 4
 end-qos-level
end-qos-levels
qos-match-rules
 qos-match-rule
  use: storage traffic
  destination: storage
  qos-level-name: fast
 end-qos-match-rule
end-qos-match-rules
)");
  std::ostringstream out, err;
  const int rc =
      run_check({file, "--match", "0x20,0x10", "--match", "0x10,0x20,service-id=0x5"}, out, err);
  EXPECT_EQ(rc, 0) << err.str();
  const std::string o = out.str();
  EXPECT_NE(o.find("1 port groups, 2 qos-levels, 1 match rules"), std::string::npos) << o;
  EXPECT_NE(o.find("-> 0x0000000000000010 [storage]: qos-match-rule 1 (line 19, 'storage "
                   "traffic') -> qos-level 'fast' (line 12): sl 5, mtu-limit 4"),
            std::string::npos)
      << o;
  EXPECT_NE(o.find("service-id 0x0000000000000005: no rule, default level -> qos-level "
                   "'DEFAULT'"),
            std::string::npos)
      << o;
  std::remove(file.c_str());
}

TEST(QosPolicyCheck, BrokenPolicyExitsOneWithPosition) {
  const std::string file = temp_file("qos-levels\n qos-level\n  name: x\n  sl: 77\n");
  std::ostringstream out, err;
  EXPECT_EQ(run_check({file}, out, err), 1);
  EXPECT_NE(err.str().find("IBSM-2501: " + file + ":4:7: sl is out of range"), std::string::npos)
      << err.str();
  std::remove(file.c_str());
}

TEST(QosPolicyCheck, BadTupleIsUsageError) {
  std::ostringstream out, err;
  EXPECT_EQ(run_check({"/nonexistent", "--match", "0x1"}, out, err), 2);
  EXPECT_NE(err.str().find("IBSM-2508"), std::string::npos);
  EXPECT_EQ(run_check({"/nonexistent", "--match", "0x1,0x2,color=3"}, out, err), 2);
  EXPECT_EQ(run_check({}, out, err), 2);
}

TEST(QosPolicyCheck, UnreadableFile) {
  std::ostringstream out, err;
  EXPECT_EQ(run_check({"/nonexistent/qos.conf"}, out, err), 1);
  EXPECT_NE(err.str().find("IBSM-2503"), std::string::npos) << err.str();
}

}  // namespace
}  // namespace ibsm::qos_policy
