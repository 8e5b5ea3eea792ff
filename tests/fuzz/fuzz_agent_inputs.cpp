// Fuzz target: the untrusted input of ibsm-agent. The first byte picks the decoder:
//  - even: the rest as a node file (agent/node_file.hpp, TOML); errors name the file
//    and line; an accepted file holds no name, address or number outside the agent's
//    grammars (agent/input_grammar.hpp), so nothing it carries can reach a shell line
//    (the corpus's node-hostile-*.toml: shell in addresses, '/', '..' and newlines in
//    names, 100-digit numbers; tests/unit/agent/hostile_input_test.cpp asserts each
//    seed is refused);
//  - 0xdd: the rest as iproute2 dcb's show output (agent/dcb.hpp), every object's
//    reader; what it keeps is in range (priority/TC 0..7, DSCP 0..63);
//  - other odd: the rest as the SA's answer to the agent's MCMemberRecord Get of the IPoIB
//    broadcast group (agent/sa_mcmember.hpp). An accepted answer carries one of the
//    five IB MTUs and is a response to the request's TID.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "agent/dcb.hpp"
#include "agent/input_grammar.hpp"
#include "agent/node_file.hpp"
#include "agent/sa_mcmember.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

// Every value of an accepted node file is inside its grammar.
void check_accepted(const ibsm::agent::NodeConfig& c, std::string_view target) {
  using namespace ibsm;
  auto name = [&](const std::string& n, const char* what) {
    fuzz::expect(n.empty() || agent::valid_ifname(n), target,
                 std::string("accepted ") + what + " \"" + n + "\"");
  };
  auto addresses = [&](const std::vector<std::string>& list) {
    for (const auto& a : list)
      fuzz::expect(agent::valid_address(a), target, "accepted address \"" + a + "\"");
  };
  for (const auto& i : c.ipoib) {
    name(i.name, "interface name");
    fuzz::expect(i.port.device.empty() || agent::valid_rdma_device_name(i.port.device), target,
                 "accepted device \"" + i.port.device + "\"");
    addresses(i.addresses);
    for (const auto& k : i.children) {
      name(k.name, "child name");
      addresses(k.addresses);
    }
  }
  for (const auto& n : c.protected_interfaces)
    fuzz::expect(agent::valid_ifname(n), target, "accepted protected interface \"" + n + "\"");
  for (const auto& r : c.roce)
    fuzz::expect(agent::valid_rdma_device_name(r.device), target,
                 "accepted RoCE device \"" + r.device + "\"");
  for (const auto& s : c.soft_rdma)
    fuzz::expect(agent::valid_rdma_device_name(s.name) && agent::valid_ifname(s.netdev), target,
                 "accepted soft RDMA " + s.name + " on " + s.netdev);
  for (const auto& l : c.modules)
    for (const auto& m : l.modules)
      fuzz::expect(agent::valid_module_name(m), target, "accepted module \"" + m + "\"");
  if (c.memlock) {
    fuzz::expect(agent::valid_group_name(c.memlock->group), target,
                 "accepted group \"" + c.memlock->group + "\"");
    for (const auto* v : {&c.memlock->soft, &c.memlock->hard})
      fuzz::expect(*v == "unlimited" || agent::parse_uint(*v, INT64_MAX / 1024), target,
                   "accepted memlock \"" + *v + "\"");
    for (const auto& u : c.memlock->services)
      fuzz::expect(agent::valid_service_name(u), target, "accepted service \"" + u + "\"");
  }
  if (c.nfs)
    for (const auto& m : c.nfs->mounts) {
      fuzz::expect(agent::valid_nfs_export(m.what) && agent::valid_plain_path(m.where), target,
                   "accepted mount " + m.what + " on " + m.where);
      for (const auto& o : m.options)
        fuzz::expect(agent::valid_mount_option(o), target, "accepted mount option \"" + o + "\"");
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ibsm;
  constexpr std::string_view kTarget = "agent_inputs";
  if (size == 0) return 0;
  const std::span<const std::uint8_t> rest(data + 1, size - 1);
  if ((data[0] & 1u) == 0) {
    auto node = agent::parse_node_file(fuzz::as_text(rest.data(), rest.size()), "fuzz-node.toml");
    if (!node.ok()) {
      fuzz::expect(node.error().message.find("fuzz-node.toml") != std::string::npos, kTarget,
                   "a node file error does not name the file: " + node.error().message);
      return 0;
    }
    check_accepted(*node, kTarget);
    return 0;
  }
  if (data[0] == 0xdd) {
    const std::string text(fuzz::as_text(rest.data(), rest.size()));
    agent::DcbState s;
    agent::read_pfc(text, s);
    agent::read_ets(text, s);
    agent::read_app(text, s);
    agent::read_apptrust(text, s);
    fuzz::expect(s.pfc.empty() || s.pfc.size() == 8, kTarget, "a PFC table of other than 8");
    for (const auto& [dscp, prio] : s.dscp_prio)
      fuzz::expect(dscp >= 0 && dscp <= 63 && prio >= 0 && prio <= 7, kTarget,
                   "a DSCP mapping out of range was kept");
    for (int tc : s.prio_tc)
      fuzz::expect(tc >= -1 && tc <= 7, kTarget, "a priority mapped to a TC out of range");
    return 0;
  }
  const agent::Mgid mgid = agent::ipoib_broadcast_mgid(0xffff);
  const std::uint32_t tid = rest.size() >= 16 ? (std::uint32_t{rest[12]} << 24) |
                                                    (std::uint32_t{rest[13]} << 16) |
                                                    (std::uint32_t{rest[14]} << 8) | rest[15]
                                              : 0;
  const bool answers = agent::answers_request(rest, tid);
  auto mtu = agent::decode_broadcast_group_mtu(rest, mgid);
  if (mtu.ok()) {
    fuzz::expect(agent::ib_mtu_bytes(1) <= *mtu && *mtu <= agent::ib_mtu_bytes(5), kTarget,
                 "an MTU outside 256..4096 was accepted");
    fuzz::expect(answers, kTarget, "an accepted answer is not a response to its TID");
  }
  (void)agent::describe_sa_status(
      rest.size() >= 6 ? static_cast<std::uint16_t>((rest[4] << 8) | rest[5]) : 0);
  return 0;
}
