#include "partitions/membership.hpp"

#include <cstdio>

#include "partitions/errors.hpp"

namespace ibsm::partitions {
namespace {

bool matches(const MemberRule& r, const FabricPort& p) {
  switch (r.kind) {
    case MemberKind::kAll:
      return true;
    case MemberKind::kAllCas:
      return p.node_type == NodeType::kCa;
    case MemberKind::kAllSwitches:
      return p.node_type == NodeType::kSwitch;
    case MemberKind::kAllRouters:
      return p.node_type == NodeType::kRouter;
    case MemberKind::kSelf:
      return p.is_sm_port;
    case MemberKind::kGuid:
      return p.port_guid == r.guid;
    case MemberKind::kNone:
      return false;
  }
  return false;
}

void apply(const MemberRule& r, std::uint16_t pkey, bool allow_both, PortMembership& pm) {
  MemberState& st = pm.pkeys[pkey];
  bool last_add_full = true;
  if (!allow_both) {
    st = r.membership == Membership::kLimited ? MemberState{true, false} : MemberState{false, true};
    last_add_full = st.full;
  } else if (r.membership == Membership::kFull) {
    st = {false, true};
  } else if (r.membership == Membership::kLimited) {
    st = {true, false};
    last_add_full = false;
  } else {
    st = {true, true};
    last_add_full = false;  // the limited entry is added last
  }
  if (r.indx0)
    pm.indx0_pkey = static_cast<std::uint16_t>(pkey | (last_add_full ? 0x8000 : 0));
  else if (pm.indx0_pkey && (pm.indx0_pkey & 0x7fff) == pkey)
    pm.indx0_pkey = 0;
}

}  // namespace

MembershipResult compute_membership(const ResolvedConfig& config, const Fabric& fabric,
                                    const MembershipOptions& options) {
  MembershipResult out;
  for (const FabricPort& p : fabric.ports)
    if (p.is_end_port()) out.ports[p.port_guid];
  for (const MemberRule& r : config.rules) {
    const std::uint16_t pkey = config.partitions[r.partition].pkey;
    for (const FabricPort& p : fabric.ports) {
      if (!p.is_end_port() || !matches(r, p)) continue;
      apply(r, pkey, options.allow_both_pkeys, out.ports[p.port_guid]);
    }
  }
  if (options.sm_port_always_full) {
    for (const FabricPort& p : fabric.ports) {
      if (!p.is_sm_port || !p.is_end_port()) continue;
      MemberState& st = out.ports[p.port_guid].pkeys[kDefaultPKey];
      if (!st.full) {
        char guid[24];
        std::snprintf(guid, sizeof guid, "0x%016llx", static_cast<unsigned long long>(p.port_guid));
        out.diagnostics.push_back(
            {Severity::kWarning, kSmPortKeptFull, 0, 0,
             std::string("SM port ") + guid + " kept a full member of the default partition",
             "SELF=full in the Default statement"});
        st.full = true;
        if (!options.allow_both_pkeys) st.limited = false;
      }
    }
  }
  out.partition_present.assign(config.partitions.size(), false);
  for (const auto& [guid, pm] : out.ports)
    for (const auto& [pkey, st] : pm.pkeys)
      if (st.any())
        for (std::size_t i = 0; i < config.partitions.size(); ++i)
          if (config.partitions[i].pkey == pkey) out.partition_present[i] = true;
  return out;
}

}  // namespace ibsm::partitions
