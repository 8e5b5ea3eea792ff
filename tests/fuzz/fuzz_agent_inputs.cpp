// Fuzz target: the untrusted input of ibsm-agent. The first byte picks the decoder:
//  - even: the rest as a node file (agent/node_file.hpp, TOML); errors name the file;
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
#include "agent/node_file.hpp"
#include "agent/sa_mcmember.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ibsm;
  constexpr std::string_view kTarget = "agent_inputs";
  if (size == 0) return 0;
  const std::span<const std::uint8_t> rest(data + 1, size - 1);
  if ((data[0] & 1u) == 0) {
    auto node = agent::parse_node_file(fuzz::as_text(rest.data(), rest.size()), "fuzz-node.toml");
    if (!node.ok())
      fuzz::expect(node.error().message.find("fuzz-node.toml") != std::string::npos, kTarget,
                   "a node file error does not name the file: " + node.error().message);
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
