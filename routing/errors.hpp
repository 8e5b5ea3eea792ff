// Routing's operator-visible errors (range 3xxx, see common/error.hpp). docs/errors.md
// is generated from kRoutingErrors, so every constant below must have a catalog row.
#pragma once

#include "common/error.hpp"

namespace ibsm::routing {

inline constexpr ErrorId kErrTopologyInvalid{3001};
inline constexpr ErrorId kErrDiameterTooLarge{3002};
inline constexpr ErrorId kErrLidOutOfRange{3003};
inline constexpr ErrorId kErrUpDownUnreachable{3004};
inline constexpr ErrorId kErrRootGuidUnknown{3005};
inline constexpr ErrorId kErrCreditLoop{3006};
inline constexpr ErrorId kErrRootGuidFile{3007};
inline constexpr ErrorId kErrUpDownNoRoot{3008};
inline constexpr ErrorId kErrDfssspVlsExhausted{3009};
inline constexpr ErrorId kErrGuidFile{3010};
inline constexpr ErrorId kErrRoutingFileUnreadable{3011};

inline constexpr ErrorInfo kRoutingErrors[] = {
    {kErrTopologyInvalid, "Routing input is inconsistent",
     "The topology handed to the routing engine refers to a switch, end port or port number "
     "that does not exist (an internal error in building the fabric model).",
     "Report a bug with the SM log; the SM keeps the previous forwarding tables."},
    {kErrDiameterTooLarge, "Fabric diameter too large for min-hop routing",
     "Some switch is more than 254 switch hops from another; hop counts are kept in one byte "
     "(directed routes cannot exceed 64 hops anyway, IBA 14.2.2).",
     "Check the cabling for a long chain of switches; split the subnet."},
    {kErrLidOutOfRange, "LID outside the unicast range",
     "An end port or switch was given a LID range that leaves the unicast LID space "
     "0x0001-0xBFFF (IBA 4.1.3).",
     "Check the LID assignment and LMC settings."},
    {kErrUpDownUnreachable, "Destinations unreachable under the up/down rule",
     "updn/dnup forbid a down-then-up turn (dnup: up-then-down) to stay free of credit loops; "
     "some switch has no legal path to the destinations named (typically between two roots "
     "joined only through lower switches). As an error: no destination could be routed.",
     "Usually harmless for switch LIDs between roots. Otherwise choose roots that every "
     "switch reaches (root_guid_file), or another engine."},
    {kErrRootGuidUnknown, "Root GUID not in the fabric",
     "A GUID of root_guid_file (-a) is neither a switch nor a port attached to a switch of the "
     "fabric just discovered; it is ignored.",
     "Check the file against ibnetdiscover output; a replaced switch has a new GUID."},
    {kErrCreditLoop, "Credit loop in the routes of a deadlock-free engine",
     "The route report found a cycle in the channel dependency graph of an engine that claims "
     "deadlock freedom (updn, dnup). The routes are discarded and the next engine of the chain "
     "is tried. The message shows one cycle as switch GUID/port channels.",
     "Report a bug with the SM log (it shows the cycle) and the topology (ibnetdiscover)."},
    {kErrRootGuidFile, "Malformed root_guid_file line",
     "A line of root_guid_file (-a) is not a GUID (hex with 0x, optional '#' comment), or "
     "the file cannot be read; the line (or the file) is skipped.",
     "Fix the line named in the message; one GUID per line, e.g. 0x0002c90300001234."},
    {kErrUpDownNoRoot, "Up/down roots chosen by fallback",
     "updn found no root for some connected group of switches: no root_guid_file GUID is in it, "
     "or OpenSM's hop-histogram rule found none (it only recognises fat trees); or, for dnup, "
     "the group has no switch with an end port. The group's "
     "centre switch (least hop distance to the end ports) is used as the single root. Routes "
     "stay deadlock free but may be far from the shortest paths, with hot spots near the root; "
     "OpenSM falls back to minhop (not deadlock free) in this case.",
     "On fat trees list the top switches in root_guid_file (-a); on other topologies this is "
     "expected."},
    {kErrDfssspVlsExhausted, "Deadlock-free routing needs more virtual lanes than available",
     "dfsssp spreads its shortest paths over virtual layers, one VL each, so that no layer's "
     "channel dependency graph has a cycle (Domke et al., IPDPS 2011). The last layer the "
     "fabric's VLs allow (max_vls, the ports' OperVLs) still has a cycle, so the routes are "
     "not deadlock free and are discarded; the next engine of the chain is tried. Fat trees "
     "need 1 layer, small irregular fabrics 2-6, but tori need many (6x6x6: about 30).",
     "Use an engine that needs fewer VLs for this topology (updn, or lash/torus-2QoS where "
     "available), raise the VLs the ports run (OperVLs) if the hardware has more, or add "
     "links that shorten the cycles."},
    {kErrGuidFile, "Malformed or unreadable GUID list file",
     "A line of cn_guid_file (-u), io_guid_file (-G), port_prof_ignore_file (-i) or "
     "ids_guid_file (-m) is not a GUID (hex with 0x; ids_guid_file: a GUID and an id), or "
     "the file cannot be read. The line (or the whole file) is skipped and routing goes on "
     "without it.",
     "Fix the line named in the message; one GUID per line, e.g. 0x0002c90300001234."},
    {kErrRoutingFileUnreadable, "Routing engine input file unreadable",
     "A file an engine of the routing_engine chain needs (torus_config for torus-2QoS, "
     "lfts_file or lid_matrix_dump_file for file) cannot be read. The engine then fails and "
     "the next engine of the chain routes the fabric.",
     "Check the path and permissions named in the message."},
};

}  // namespace ibsm::routing
