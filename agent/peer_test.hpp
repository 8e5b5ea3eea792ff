// `ibsm-agent test PEER...`: the Red Hat guide's chapter 7 checks in one command,
// each with a verdict and the command that reproduces it:
//   - ping over each planned IPoIB interface (`ping -c 3 -W 2 -I IFACE PEER`);
//   - ibping to the peer's port, whose GUID the kernel learnt from IPoIB's neighbour
//     entry (the last 8 bytes of the 20-byte hardware address); the peer must run
//     `ibping -S`;
//     (or `ibsm-agent ping-responder`);
//   - RDMA round trips with rdma-core's tools where installed: ibv_rc_pingpong
//     (ibverbs-utils) over the port that reached the peer, whose peer runs
//     `ibv_rc_pingpong -d DEVICE -i PORT`; rping (rdmacm-utils), whose peer runs `rping -s`.
// A missing tool is "skipped" with the package to install, never a failure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "agent/fs.hpp"
#include "agent/kernel.hpp"
#include "agent/plan.hpp"

namespace ibsm::agent {

enum class PeerVerdict { kPassed, kFailed, kSkipped };
std::string_view verdict_name(PeerVerdict v);

struct PeerCheck {
  std::string peer;
  std::string check;  // "ping ib0.8002", "ibping", "rping"
  PeerVerdict verdict = PeerVerdict::kSkipped;
  std::string command;  // what reproduces it
  std::string detail;   // the tool's last line, or why it was skipped
};

std::vector<PeerCheck> test_peers(const std::vector<std::string>& peers, const Plan& plan,
                                  const Fs& fs, const CommandRunner& runner);

// The port GUID in an IPoIB neighbour's 20-byte link-layer address
// ("80:00:00:48:fe:80:...:00:02:c9:03:00:00:12:34" -> "0x0002c90300001234"); empty if
// it is not one.
std::string guid_from_ipoib_lladdr(const std::string& lladdr);

// Packets lost, from the "N packets transmitted, M received" line ping and ibping print;
// nothing without that line.
std::optional<int> ping_loss(const std::string& output);

// ibv_rc_pingpong's client command against `peer` on `device`/`port` (100 round trips).
std::vector<std::string> rc_pingpong_argv(const std::string& peer, const std::string& device,
                                          int port);
// "6553.60 Mbit/s, 10.00 usec/iter" from ibv_rc_pingpong's two summary lines; nothing if
// either is missing.
std::optional<std::string> parse_rc_pingpong(const std::string& output);

// 0 all passed (or skipped), 3 a check failed.
int peer_exit_code(const std::vector<PeerCheck>& checks);
std::string render_peer_checks(const std::vector<PeerCheck>& checks, bool json);

}  // namespace ibsm::agent
