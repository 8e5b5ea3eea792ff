// PortInfoRecord (IBA 15.2.5.3): the PortInfo of every port, as OpenSM's
// osm_sa_portinfo_record.c serves it. A switch's ports all carry the switch's
// port-0 LID; the EndportLID of a query matches any LID of the LMC range. A query
// with EndportLID or the PortInfo LID component looks at the one node holding
// the EndportLID (OpenSM looks the node up by EndportLID in both cases). M_Key
// reads 0 for requests that are not trusted (15.2.5.3, OpenSM "p922").
#include "sa/handlers.hpp"
#include "sa/path_resolver.hpp"
#include "sa/records/record_util.hpp"
#include "sa/records/topology_util.hpp"

namespace ibsm::sa {

namespace {

// Component-mask bits (OpenSM IB_PIR_COMPMASK_*).
constexpr unsigned kPortInfoBitLid = 0;
constexpr unsigned kPortInfoBitPortNum = 1;
constexpr unsigned kPortInfoBitOptions = 2;
constexpr unsigned kPortInfoBitBaseLid = 5;
constexpr unsigned kPortInfoBitCapMask = 7;
constexpr unsigned kPortInfoBitCapMask2 = 53;
constexpr unsigned kPortInfoBitLinkSpeedExtActive = 54;
constexpr unsigned kPortInfoBitLinkSpeedExtSupported = 55;
constexpr unsigned kPortInfoBitLinkSpeedExtEnabled = 57;
constexpr std::uint64_t kExtSpeedBits = (1ull << kPortInfoBitLinkSpeedExtActive) |
                                        (1ull << kPortInfoBitLinkSpeedExtSupported) |
                                        (1ull << kPortInfoBitLinkSpeedExtEnabled);

// Record offsets.
constexpr std::size_t kOffOptions = 3;
constexpr std::size_t kOffPortInfo = 4;
constexpr std::size_t kOffCapMask = kOffPortInfo + 20;
constexpr std::size_t kOffCapMask2 = kOffPortInfo + 60;

// IBA 15.2.1.1 errata (IBTA 1.2): AttributeModifier bit 31 of a Get/GetTable asks
// for CapabilityMask/CapabilityMask2 to match when every bit set in the query is
// set in the port (ClassPortInfo CapabilityMask bit 13 advertises it; `saquery -s`
// relies on it to find IsSM ports).
constexpr std::uint32_t kAttrModCapMaskMatch = 1u << 31;
// PortInfoRecord Options bit 7 (IBA 1.3): report the link speeds as the port has
// them, without folding extended speeds into the legacy fields.
constexpr std::uint8_t kOptionRawSpeeds = 0x80;
// PortInfo.CapabilityMask IsExtendedSpeedsSupported (IBA 14.2.5.6 table 150, bit 14).
constexpr std::uint32_t kCapHasExtSpeeds = 1u << 14;
constexpr std::uint8_t kSpeedQdr = 0x4;  // LinkSpeed bit for 10 Gb/s lanes

// CapabilityMask (or CapabilityMask2) matching: equality, or with `subset` every
// bit of the query set in the port (IBA 15.2.5.3 as amended by the 1.2 errata).
bool capability_mask_matches(std::uint32_t want, std::uint32_t have, bool subset) {
  return subset ? (want & have) == want : want == have;
}

// The view of the link speeds a client that predates extended speeds expects
// (OpenSM's pir_rcv_new_pir): a port running an extended speed also reports the
// QDR bit in LinkSpeedSupported, LinkSpeedEnabled and LinkSpeedActive.
void fold_ext_speeds(mad::PortInfo& pi) {
  pi.link_speed_supported = static_cast<std::uint8_t>(pi.link_speed_supported | kSpeedQdr);
  pi.link_speed_enabled = static_cast<std::uint8_t>(pi.link_speed_enabled | kSpeedQdr);
  pi.link_speed_active = static_cast<std::uint8_t>(pi.link_speed_active | kSpeedQdr);
}

// IBA C14-24-2.1: while PortState is Down only PortState and PortPhysicalState
// mean anything; OpenSM keeps nothing else of such a port (osm_physp_set_port_info)
// and serves the rest as 0.
mad::PortInfo served_port_info(const mad::PortInfo& read) {
  if (read.port_state != mad::PortState::kDown) return read;
  mad::PortInfo pi;
  pi.port_state = read.port_state;
  pi.phys_state = read.phys_state;
  return pi;
}

}  // namespace

HandlerResult handle_port_info_record(RequestContext& ctx) {
  // OpenSM answers no PortInfoRecord query from a LID it does not know.
  if (!ctx.requester.valid()) return HandlerResult::silent();
  const RecordLayout& layout = *find_layout(attr::kPortInfoRecord);
  HandlerResult r;
  r.words = layout.words();
  const auto query = ctx.query(layout.padded_size());
  const Lid want_lid = static_cast<Lid>(get_be(query, 0, 2));
  const std::uint8_t want_options = query[kOffOptions];
  const bool subset = (ctx.request.header.attr_mod & kAttrModCapMaskMatch) != 0;
  std::vector<std::uint8_t> cand(layout.padded_size());

  auto consider = [&](PortRef p) {
    if (!physp_visible(ctx, p)) return;
    const SnapNode& node = ctx.snap.node(p);
    const SnapPort& port = ctx.snap.port(p);
    const LidRange range = lid_range(ctx.snap, p);
    if (ctx.has(kPortInfoBitLid) && !range.contains(want_lid)) return;
    // A switch's extended-speed capability is its port 0's (OpenSM).
    const std::uint32_t cap =
        node.is_switch() ? node.ports[0].info.capability_mask : port.info.capability_mask;
    const bool ext_speeds = (cap & kCapHasExtSpeeds) != 0;

    mad::PortInfo pi = served_port_info(port.info);
    // Untrusted requests match the M_Key they are shown (0). OpenSM compares the
    // real key before zeroing it, which lets anyone probe keys with the M_Key
    // component; nothing legitimate depends on that.
    if (!ctx.trusted) pi.m_key = 0;
    std::fill(cand.begin(), cand.end(), 0);
    put_be(cand, 0, range.base, 2);
    cand[2] = p.port;
    if (ctx.has(kPortInfoBitOptions)) cand[kOffOptions] = want_options;
    embed(cand, kOffPortInfo, pi, 64);

    std::uint64_t custom =
        (1ull << kPortInfoBitLid) | (1ull << kPortInfoBitCapMask) | (1ull << kPortInfoBitCapMask2);
    if (!ext_speeds) custom |= kExtSpeedBits;  // meaningless without the capability
    if (ctx.has(kPortInfoBitCapMask) &&
        !capability_mask_matches(static_cast<std::uint32_t>(get_be(query, kOffCapMask, 4)),
                                 pi.capability_mask, subset))
      return;
    if (ctx.has(kPortInfoBitCapMask2) &&
        !capability_mask_matches(static_cast<std::uint32_t>(get_be(query, kOffCapMask2, 2)),
                                 pi.capability_mask2, subset))
      return;
    if (!matches_except(layout, ctx, query, cand, custom)) return;

    const bool raw = ctx.has(kPortInfoBitOptions) && (want_options & kOptionRawSpeeds) != 0;
    const bool xdr_active = extended_speeds2(node.is_switch() ? node.ports[0].info : port.info) &&
                            pi.link_speed_ext_active2 != 0;
    if (!raw && ((ext_speeds && pi.link_speed_ext_active != 0) || xdr_active)) {
      fold_ext_speeds(pi);
      embed(cand, kOffPortInfo, pi, 64);
    }
    auto out = r.add();
    std::copy(cand.begin(), cand.end(), out.begin());
  };

  auto scan_node = [&](const SnapNode& n) {
    if (ctx.has(kPortInfoBitPortNum)) {
      const PortNum num = query[2];
      if (num < n.ports.size() && n.ports[num].present) consider(PortRef{n.index, num});
      return;
    }
    for (const SnapPort& port : n.ports) {
      if (!port.present) continue;
      consider(PortRef{n.index, port.num});
      if (enough(ctx, r)) return;
    }
  };

  if (ctx.has(kPortInfoBitLid) || ctx.has(kPortInfoBitBaseLid)) {
    // OpenSM takes the node from EndportLID even when only BaseLID is selected.
    const PortRef p = ctx.snap.find_lid(want_lid);
    if (p.valid()) scan_node(ctx.snap.node(p));
    return r;
  }
  for (std::uint32_t idx : nodes_in_opensm_order(ctx.snap, false)) {
    scan_node(ctx.snap.nodes[idx]);
    if (enough(ctx, r)) break;
  }
  return r;
}

}  // namespace ibsm::sa
