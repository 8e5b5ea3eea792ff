// qos-setup of the policy file applied to a fabric: which vlarb-scope sets the
// VLArbitration table of a port and which sl2vl-scope the SL2VL table of a switch's
// (input, output) pair or of an end port. OpenSM 3.3.23 parses this section and
// ignores it; ibsm applies it, with these rules (docs/qos-policy.md):
//   vlarb-scope  group:  ports of these groups (a switch in a group: all its ports);
//                across: switch ports whose link leads to a port of these groups.
//   sl2vl-scope  group:  tables of the groups' end ports, and of the groups' switches
//                        for the input ports in `from` and output ports in `to`
//                        (both default to every port);
//                across-from / across-to: switch tables whose input / output port
//                        leads to a port of these groups (with `to` / `from`);
//                across: both.
// The first scope in file order that covers a port or table decides it; what no
// scope covers keeps opensm.conf's qos_* class tables. Port group names a scope uses
// that the file does not define are warned about and match nothing.
#pragma once

#include <cstdint>
#include <vector>

#include "qos_policy/compile.hpp"

namespace ibsm::qos_policy {

inline constexpr std::uint32_t kNoPort = UINT32_MAX;

class Setup {
 public:
  Setup(const CompiledPolicy& policy, std::vector<CompileNote>& notes);

  bool has_vlarb() const { return !vlarb_.empty(); }
  bool has_sl2vl() const { return !sl2vl_.empty(); }

  // `self`: the port's holder in the compiled fabric (the end port, or the switch);
  // `peer`: the holder at the other end of its link (switch external ports), else kNoPort.
  const VlArbScope* vlarb(std::uint32_t self, std::uint32_t peer) const;
  // An end port's own table.
  const Sl2VlScope* sl2vl_end_port(std::uint32_t self) const;
  // A switch's table for (in, out); in_peer / out_peer as `peer` above.
  const Sl2VlScope* sl2vl_switch(std::uint32_t sw, unsigned in, std::uint32_t in_peer, unsigned out,
                                 std::uint32_t out_peer) const;

 private:
  struct Names {
    std::vector<std::size_t> ids;
  };
  bool any(std::uint32_t port, const Names& n) const;
  const CompiledPolicy& c_;
  struct Vl {
    const VlArbScope* scope;
    Names group, across;
  };
  struct Sl {
    const Sl2VlScope* scope;
    Names group, from_peer, to_peer;
  };
  std::vector<Vl> vlarb_;
  std::vector<Sl> sl2vl_;
};

}  // namespace ibsm::qos_policy
