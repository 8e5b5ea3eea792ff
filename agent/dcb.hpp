// RoCE lossless settings through iproute2's dcb. DcbTool reads a netdev's PFC, ETS,
// DSCP map and trust order with `dcb [-N] OBJECT show dev NETDEV ATTRS` and parses the
// text (one "attr key:value ..." line per attribute); the planner compares that with
// the node file's [roce.dcb] and plans `dcb ... set/replace` commands. A part the NIC
// or the installed dcb cannot do is skipped with the reason, never an error: not every
// RoCE NIC has DCB operations (dcbnl), and `dcb apptrust` needs iproute2 6.3.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "agent/kernel.hpp"
#include "agent/observed.hpp"

namespace ibsm::agent {

class DcbProbe {
 public:
  virtual ~DcbProbe() = default;
  virtual DcbState read(const std::string& netdev) const = 0;
};

class DcbTool final : public DcbProbe {
 public:
  explicit DcbTool(const CommandRunner& runner) : runner_(runner) {}
  DcbState read(const std::string& netdev) const override;

 private:
  const CommandRunner& runner_;
};

// "prio-pfc 0:off 1:on\ntc-bw 0:50 1:50 ..." -> {"prio-pfc": [("0","off"), ("1","on")], ...}.
// Tokens without ':' are kept with an empty value ("order: pcp dscp" -> "order:" [pcp, dscp]).
// Never throws; garbage gives whatever well-formed pairs it holds.
std::map<std::string, std::vector<std::pair<std::string, std::string>>> parse_dcb_show(
    const std::string& text);

// Fills the parts of `state` from dcb's show output of each object (exported for tests
// and the fuzz target). Entries out of range (priority/TC 0..7, DSCP 0..63) are ignored.
void read_pfc(const std::string& text, DcbState& state);
void read_ets(const std::string& text, DcbState& state);
void read_app(const std::string& text, DcbState& state);
void read_apptrust(const std::string& text, DcbState& state);

}  // namespace ibsm::agent
