// qos-setup on a fabric (setup.hpp).
#include "qos_policy/setup.hpp"

#include <algorithm>
#include <cctype>

#include "common/text.hpp"
#include "qos_policy/errors.hpp"

namespace ibsm::qos_policy {

Setup::Setup(const CompiledPolicy& policy, std::vector<CompileNote>& notes) : c_(policy) {
  const Policy& p = policy.policy();
  auto resolve = [&](const std::vector<std::string>& names, SourcePos pos, const char* scope) {
    Names out;
    for (const std::string& n : names) {
      bool found = false;
      for (std::size_t g = 0; g < p.groups.size() && !found; ++g) {
        if (!p.groups[g].generated && iequal(p.groups[g].name, n)) {
          out.ids.push_back(g);
          found = true;
        }
      }
      if (!found)
        notes.push_back(
            {false, kPolicyReference.code, pos,
             std::string(scope) + ": port-group '" + n + "' not found; it covers no port"});
    }
    return out;
  };
  for (const VlArbScope& v : p.vlarb)
    vlarb_.push_back(
        {&v, resolve(v.groups, v.pos, "vlarb-scope"), resolve(v.across, v.pos, "vlarb-scope")});
  for (const Sl2VlScope& v : p.sl2vl)
    sl2vl_.push_back({&v, resolve(v.groups, v.pos, "sl2vl-scope"),
                      resolve(v.across_from, v.pos, "sl2vl-scope"),
                      resolve(v.across_to, v.pos, "sl2vl-scope")});
}

bool Setup::any(std::uint32_t port, const Names& n) const {
  if (port == kNoPort) return false;
  return std::any_of(n.ids.begin(), n.ids.end(),
                     [&](std::size_t g) { return c_.in_group(port, g); });
}

const VlArbScope* Setup::vlarb(std::uint32_t self, std::uint32_t peer) const {
  for (const Vl& v : vlarb_) {
    if (any(self, v.group) || any(peer, v.across)) return v.scope;
  }
  return nullptr;
}

const Sl2VlScope* Setup::sl2vl_end_port(std::uint32_t self) const {
  for (const Sl& v : sl2vl_) {
    if (any(self, v.group)) return v.scope;
  }
  return nullptr;
}

const Sl2VlScope* Setup::sl2vl_switch(std::uint32_t sw, unsigned in, std::uint32_t in_peer,
                                      unsigned out, std::uint32_t out_peer) const {
  for (const Sl& v : sl2vl_) {
    const Sl2VlScope& s = *v.scope;
    const bool from = !s.from_set || (in < kMaxSwitchPorts && s.from.test(in));
    const bool to = !s.to_set || (out < kMaxSwitchPorts && s.to.test(out));
    if ((any(sw, v.group) && from && to) || (any(in_peer, v.from_peer) && to) ||
        (any(out_peer, v.to_peer) && from))
      return v.scope;
  }
  return nullptr;
}

}  // namespace ibsm::qos_policy
