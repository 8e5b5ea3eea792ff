// `ibsm-agent test PEER...`: the Red Hat guide's chapter 7 checks in one command,
// each with a verdict and the command that reproduces it:
//   - ping over each planned IPoIB interface (`ping -c 3 -W 2 -I IFACE PEER`);
//   - ibping to the peer's port, whose GUID the kernel learnt from IPoIB's neighbour
//     entry (the last 8 bytes of the 20-byte hardware address); the peer must run
//     `ibping -S`;
//   - an RDMA round trip with rdma-core's rping (librdmacm-utils) where installed; the
//     peer must run `rping -s`.
// A missing tool is "skipped" with the package to install, never a failure.
#pragma once

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

// 0 all passed (or skipped), 3 a check failed.
int peer_exit_code(const std::vector<PeerCheck>& checks);
std::string render_peer_checks(const std::vector<PeerCheck>& checks, bool json);

}  // namespace ibsm::agent
