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
inline constexpr ErrorId kErrHopWeightsFile{3060};
inline constexpr ErrorId kErrHopWeightUnknown{3061};
inline constexpr ErrorId kErrBalanceGuidUnknown{3062};
inline constexpr ErrorId kErrFtreeNotATree{3020};
inline constexpr ErrorId kErrFtreeGuidUnknown{3021};
inline constexpr ErrorId kErrFtreeUnreachable{3022};
inline constexpr ErrorId kErrFileEngineNoInput{3040};
inline constexpr ErrorId kErrFileEngineEmptyInput{3041};
inline constexpr ErrorId kErrLftDumpSyntax{3042};
inline constexpr ErrorId kErrLftDumpMismatch{3043};
inline constexpr ErrorId kErrLftDumpSkipped{3044};
inline constexpr ErrorId kErrLftDumpIncomplete{3045};
inline constexpr ErrorId kErrLidMatrixSyntax{3046};
inline constexpr ErrorId kErrLidMatrixMismatch{3047};
inline constexpr ErrorId kErrLidMatrixSkipped{3048};
inline constexpr ErrorId kErrTorusConfigSyntax{3030};
inline constexpr ErrorId kErrTorusConfigMissing{3031};
inline constexpr ErrorId kErrTorusSeedUnusable{3032};
inline constexpr ErrorId kErrTorusMismatch{3033};
inline constexpr ErrorId kErrTorusDisjointRing{3034};
inline constexpr ErrorId kErrTorusUnroutable{3035};
inline constexpr ErrorId kErrPortOrderFile{3036};
inline constexpr ErrorId kErrPortOrderIgnored{3037};
inline constexpr ErrorId kErrThrottledLinksAvoided{3038};
inline constexpr ErrorId kErrThrottledLinksKept{3039};
inline constexpr ErrorId kErrLashVlsExhausted{3070};
inline constexpr ErrorId kErrNotAMesh{3071};
inline constexpr ErrorId kErrDfssspTorusLayers{3072};
inline constexpr ErrorId kErrEscapeLayer{3080};
inline constexpr ErrorId kErrEscapeLayerNoVl{3081};
inline constexpr ErrorId kErrRoutesIncomplete{3082};

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
    {kErrLashVlsExhausted, "lash needs more virtual lanes than available",
     "lash puts the shortest paths of every pair of switches into the first virtual layer "
     "(one SL and VL each, from lash_start_vl up) whose channel dependency graph stays "
     "acyclic. The pair named fits into none of the layers the fabric's VLs allow (max_vls, "
     "the ports' OperVLs, minus lash_start_vl), or lash_start_vl leaves no VL at all. The "
     "routes are discarded and the next engine of the chain is tried. Meshes of a few dozen "
     "switches need 2-4 layers; balanced shortest paths on a 6x6x6 torus need 9, which is "
     "why lash tries dimension-ordered paths there (do_mesh_analysis), which fit 8.",
     "Lower lash_start_vl, raise the VLs the ports run if the hardware has more, or use an "
     "engine that needs fewer VLs here (nue works with any number, down to 1; torus-2QoS on "
     "tori)."},
    {kErrNotAMesh, "Mesh analysis found no mesh or torus",
     "do_mesh_analysis TRUE asks lash to route a mesh or torus dimension by dimension, which "
     "needs far fewer virtual layers than arbitrary shortest paths. The analysis finds the "
     "dimensions from the links alone (two neighbours of a switch lie in different dimensions "
     "exactly when they span a square); the switch named breaks that rule: a triangle, more "
     "than two neighbours along one dimension (trees, dragonflies, random fabrics), or a "
     "torus with a missing link or switch. lash then uses its usual shortest paths.",
     "Nothing, if the fabric is not a mesh or torus. On a damaged torus, torus-2QoS (with "
     "torus_config) routes around failures."},
    {kErrDfssspTorusLayers, "dfsssp routed a torus dimension by dimension",
     "sssp's balanced shortest paths on this mesh or torus needed more virtual layers than "
     "the VLs allow (IBSM-3009), so dfsssp routed it with dimension-ordered shortest paths "
     "instead, one layer per combination of ring datelines the paths cross (at most 8 on a "
     "3D torus), found by the mesh analysis (routing/mesh_analysis). The routes are free of "
     "credit loops and minimal, but not balanced by sssp's weights. OpenSM's dfsssp falls "
     "back to minhop here, whose routes have credit loops.",
     "Nothing. More VLs on the switch links let sssp's paths be layered instead; on tori, "
     "torus-2QoS is the engine designed for them."},
    {kErrDfssspVlsExhausted, "Deadlock-free routing needs more virtual lanes than available",
     "dfsssp spreads its shortest paths over virtual layers, one VL each, so that no layer's "
     "channel dependency graph has a cycle (Domke et al., IPDPS 2011). The last layer the "
     "fabric's VLs allow (max_vls, the ports' OperVLs) still has a cycle, so the routes are "
     "not deadlock free and are discarded; the next engine of the chain is tried. Fat trees "
     "need 1 layer, small irregular fabrics 2-6, but tori need many (6x6x6: about 30); on a "
     "mesh or torus dfsssp then routes dimension by dimension instead (IBSM-3072) if that "
     "fits, and this error stands only when it does not either.",
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
    {kErrHopWeightsFile, "Malformed or unreadable hop_weights_file line",
     "A line of hop_weights_file (-w) is not '<switch GUID> <port> <weight>' (GUID hex with "
     "0x, port 1-254, weight 1-255, '#' starts a comment), or the file cannot be read. The "
     "line (or the whole file) is skipped; unlisted ports weigh 1.",
     "Fix the line named in the message, e.g. '0x0002c90300001234 3 10'."},
    {kErrHopWeightUnknown, "hop_weights_file names no port of the fabric",
     "A hop_weights_file (-w) line names a switch GUID that is not a switch of the fabric just "
     "discovered, or a port that is not one of its inter-switch links; the weight is ignored.",
     "Check the file against ibnetdiscover output; a replaced switch has a new GUID."},
    {kErrBalanceGuidUnknown, "Routing order or balance-ignore GUID not in the fabric",
     "A GUID of guid_routing_order_file (-X) or port_prof_ignore_file (-i) is not the port "
     "GUID of an end port or the GUID of a switch of the fabric just discovered (or is listed "
     "twice in the routing order); it is ignored.",
     "Check the file against ibnetdiscover output; a replaced HCA has a new GUID."},
    {kErrFtreeNotATree, "ftree: the fabric is not a fat tree",
     "ftree ranks switches from the leaves (switches with compute nodes) or from "
     "root_guid_file and routes up then down. Here too many inter-switch links join switches "
     "of the same rank (a torus, a mesh, leaves cabled to each other), or some leaf has no "
     "up/down path to some compute node. Missing links or switches of a real fat tree do not "
     "cause this. The engine fails and the next engine of the chain routes the fabric.",
     "Use an engine for this topology (updn, dfsssp, torus-2QoS), or list the top switches "
     "in root_guid_file and the compute nodes in cn_guid_file if it is a tree."},
    {kErrFtreeGuidUnknown, "ftree: GUID list names no node of the fabric",
     "A GUID of root_guid_file (-a), cn_guid_file (-u) or io_guid_file (-G) is not a switch "
     "or end port of the fabric just discovered; it is ignored.",
     "Check the file against ibnetdiscover output; a replaced node has a new GUID."},
    {kErrFtreeUnreachable, "ftree: destinations unreachable under up/down",
     "No longer logged: switch LIDs and I/O nodes that some switch with end ports cannot "
     "reach going up then down are routed on the escape layer (IBSM-3080) or, without a "
     "second VL, make ftree fail (IBSM-3081). Kept so that older logs resolve.",
     "See IBSM-3080."},
    {kErrFileEngineNoInput, "file routing engine has nothing to load",
     "The routing_engine chain names 'file' but neither lfts_file (-U) nor "
     "lid_matrix_dump_file (-M) is set. The engine fails and the next engine of the chain "
     "routes the fabric.",
     "Set lfts_file to an opensm-lfts.dump (or ibroute output) of this fabric, or "
     "lid_matrix_dump_file to an opensm-lid-matrix.dump, or drop 'file' from the chain."},
    {kErrFileEngineEmptyInput, "file routing engine input is empty",
     "lfts_file (-U) or lid_matrix_dump_file (-M) is empty or could not be read (a read "
     "failure is logged before as IBSM-3011). The engine fails and the next engine of the "
     "chain routes the fabric.",
     "Check the path named in the message; regenerate the dump (OpenSM or ibsm with "
     "-D 0x40 --dump_files_dir, or ibroute)."},
    {kErrLftDumpSyntax, "Malformed LFT dump (lfts_file)",
     "A line of lfts_file (-U) is not part of OpenSM's opensm-lfts.dump or ibroute's format: "
     "a switch header 'Unicast lids [..] of switch Lid <lid> guid 0x<guid> (<name>):', rows "
     "'0x<lid> <port> ...' and a '<n> lids dumped' footer. Also reported: a LID above 0xBFFF, "
     "a port above 255, a LID or switch listed twice, a block without footer (a truncated "
     "file). The message names file and line. The engine fails and the next engine of the "
     "chain routes the fabric.",
     "Fix or regenerate the file; the message names the first bad line."},
    {kErrLftDumpMismatch, "LFT dump does not fit the fabric",
     "lfts_file (-U) cannot be loaded into the fabric just discovered: a switch of the "
     "fabric has no block in the dump, no switch GUID of the dump is in the fabric (a dump of "
     "another fabric), or an entry sends a LID to a port the switch does not have or whose "
     "link is down. The tables are not programmed; the next engine of the chain routes the "
     "fabric. (OpenSM would load such a dump partly and leave the rest to chance.)",
     "Regenerate the dump on the current fabric, or route with another engine until the "
     "cabling matches the dump again."},
    {kErrLftDumpSkipped, "LFT dump entries skipped",
     "lfts_file (-U) holds blocks of switches that are not in the fabric (skipped, as OpenSM "
     "does), or entries for LIDs above the fabric's highest LID (skipped). The rest of the "
     "dump is loaded.",
     "Usually a switch was removed or LIDs were compacted; regenerate the dump to silence it."},
    {kErrLftDumpIncomplete, "LFT dump leaves LIDs unrouted",
     "Some switches of lfts_file (-U) have no entry for LIDs of ports in the fabric (nodes "
     "added since the dump was taken, or LIDs that changed). Packets to those LIDs from those "
     "switches are dropped; the message counts them and names the first.",
     "Regenerate the dump on the current fabric."},
    {kErrLidMatrixSyntax, "Malformed LID matrix dump (lid_matrix_dump_file)",
     "A line of lid_matrix_dump_file (-M) is not part of OpenSM's opensm-lid-matrix.dump: a "
     "'Switch: guid 0x<guid>' header and rows '0x<lid>: <hex hops per port, port 0 first>'. "
     "Also reported: a LID above 0xBFFF, a hop count above 0xff, more than 256 ports, a LID "
     "or switch listed twice, rows of one switch with different port counts (a truncated "
     "line), a switch without rows. The message names file and line. The engine fails.",
     "Fix or regenerate the file; the message names the first bad line."},
    {kErrLidMatrixMismatch, "LID matrix does not fit the fabric",
     "lid_matrix_dump_file (-M) cannot route the fabric just discovered: a switch has no "
     "block, no switch GUID matches (a dump of another fabric), a finite hop count names a "
     "port that does not exist or leads to no switch, a minimal port does not lead closer to "
     "the destination, or a switch lacks hops to a switch it reaches. The engine fails and "
     "the next engine of the chain routes the fabric.",
     "Regenerate the LID matrix on the current fabric (-D 0x40 --dump_files_dir)."},
    {kErrLidMatrixSkipped, "LID matrix entries skipped",
     "lid_matrix_dump_file (-M) holds blocks of switches that are not in the fabric, or rows "
     "for LIDs that are no switch's LID; they are ignored (OpenSM ignores unknown switches "
     "too).",
     "Usually harmless after a switch was removed; regenerate the file to silence it."},
    {kErrTorusConfigSyntax, "Malformed torus-2QoS.conf (torus_config)",
     "A line of the torus-2QoS configuration is not understood: the first keyword is not "
     "'torus' or 'mesh', a radix is not a number 1-255 with an optional t/T/m/M suffix, a "
     "GUID or port number does not parse, a dateline is not an integer, a link keyword names "
     "another 'from' switch than the rest of its seed, or a keyword is unknown. The message "
     "names file and line. torus-2QoS fails and the next engine of the chain routes.",
     "Fix the line named in the message (see torus-2QoS.conf(5) for the syntax)."},
    {kErrTorusConfigMissing, "torus-2QoS has no usable configuration",
     "The routing_engine chain names torus-2QoS but torus_config is not set, or the file has "
     "no 'torus'/'mesh' line, or no seed (xp_link/yp_link/zp_link), or a seed lacks the link "
     "of a dimension of radix > 1, or a radix-4 torus dimension lacks its p or m link. "
     "torus-2QoS fails and the next engine of the chain routes.",
     "Write a torus-2QoS.conf for the fabric and point torus_config at it."},
    {kErrTorusSeedUnusable, "No torus-2QoS seed is in the fabric",
     "Every seed of torus-2QoS.conf names a switch GUID that is not a switch of the fabric, or "
     "two switches that are not cabled to each other. torus-2QoS fails and the next engine of "
     "the chain routes.",
     "Check the GUIDs of the *_link lines against ibnetdiscover; add a next_seed whose "
     "switches are up."},
    {kErrTorusMismatch, "Fabric does not match torus-2QoS.conf",
     "torus-2QoS could not give every switch a torus coordinate consistent with the "
     "configured radices and seeds: a switch is left unplaced, two switches would share a "
     "coordinate, a link joins switches that are not torus neighbours, there are more "
     "switches than coordinates, or a switch has more parallel links in one direction (or "
     "more end ports, port 0 included) than portgroup_max_ports. The message names the first "
     "offending switch. torus-2QoS "
     "refuses the fabric (routing it would not be deadlock free) and the next engine of the "
     "chain routes.",
     "Check the radices in the torus/mesh line and the seed links against the cabling; "
     "recable or correct the file."},
    {kErrTorusDisjointRing, "Torus ring broken into disjoint pieces",
     "Failed links or switches split a 1D ring of the torus (or a line of a mesh) into two or "
     "more pieces. torus-2QoS can route the long way round a ring broken once, not around "
     "a split ring, and refuses the fabric, as OpenSM does. The message names the ring. The "
     "next engine of the chain routes.",
     "Repair the failed links or switches named by the discovery log."},
    {kErrTorusUnroutable, "torus-2QoS left destinations unreachable",
     "Around failed switches, the dimension-order rules of torus-2QoS found no hop from some "
     "switch towards some destination switch; those LFT entries drop packets (OpenSM's ERR "
     "4E39). The message counts them and names the first.",
     "Repair the failed switches; torus-2QoS routes around one failed switch (or several "
     "adjacent in z) only."},
    {kErrPortOrderFile, "Malformed port_search_ordering_file",
     "A line of port_search_ordering_file (-O, dimn_ports_file) is not '<switch GUID> <port> "
     "<port> ...' (numbers, '#' starts a comment). The message names file and line. dor fails "
     "and the next engine of the chain routes.",
     "Fix the line named in the message."},
    {kErrPortOrderIgnored, "port_search_ordering_file line ignored",
     "A line of port_search_ordering_file names a GUID that is no switch of the fabric, a "
     "switch listed before, or a port that is 0, above the switch's port count or listed "
     "twice. The line is ignored, as OpenSM does; that switch keeps the default port order.",
     "Correct or remove the line named in the message."},
    {kErrThrottledLinksAvoided, "Throttled links left out of the routes",
     "avoid_throttled_links is set and some switch-to-switch links run below the fastest "
     "speed or widest width both their ends enable (or the two ends disagree): sssp, dfsssp "
     "and nue route around them, as OpenSM does. The message counts them and names the first "
     "few. They carry no routed traffic until they train at full speed.",
     "Reseat or replace the cables named, check force_link_speed/force_link_width, or "
     "unset avoid_throttled_links to use them anyway."},
    {kErrThrottledLinksKept, "Throttled links routed: the only way between switches",
     "avoid_throttled_links is set, but leaving these throttled links out would cut some "
     "switches off from others, so they stay in the routes (OpenSM would leave those "
     "switches unreachable). The message names them.",
     "Repair the links named; add redundant links around them."},
    {kErrEscapeLayer, "Destinations routed on the escape layer (SL 1)",
     "ftree, updn or dnup found destination LIDs that some switch with end ports cannot "
     "reach under the engine's up/down rule: on a degraded fat tree typically switch LIDs "
     "(switch port 0, which ibroute, perfquery and PerfMgr need) and I/O nodes. Every switch "
     "is routed to them over a second up/down order on SL 1 (VL 1), which keeps the routes "
     "free of credit loops; the SA hands out SL 1 for them. The message counts them and "
     "names one.",
     "Nothing needs doing for routing to work. Repair the missing links to bring the tree "
     "back to one layer. Tools that send GMPs to a switch on a data VL without asking the "
     "SA for the SL use SL 0 on these paths (docs/routing.md, switch LIDs on degraded "
     "trees); SMPs travel on VL 15 and are not affected."},
    {kErrEscapeLayerNoVl, "Unreachable destinations and no VL for the escape layer",
     "ftree, updn or dnup left destination LIDs unreachable from some switch with end ports "
     "(see IBSM-3080) and cannot route them on a second layer: the fabric's links run one "
     "data VL only (OperVLs 1, max_op_vls or the QoS settings), or the engine's routes "
     "already use per-path SLs. The engine fails and the next engine of the chain routes "
     "the fabric, as OpenSM falls back to minhop on a tree it rejects.",
     "Let the links run 2 or more data VLs (max_op_vls), repair the missing links, or "
     "choose an engine that reaches every LID on this topology (updn, dfsssp)."},
    {kErrRoutesIncomplete, "Routing engine left destinations unreachable",
     "The route report of a routing engine that claims to reach every LID (ftree, updn, "
     "dnup) found (source end port, destination LID) pairs the tables do not deliver, to a "
     "CA, router port or switch port 0. The tables are not programmed, as with a credit "
     "loop (IBSM-3006); the next engine of the chain routes the fabric. The message gives "
     "the counts and examples.",
     "Report a bug with the fabric's ibnetdiscover output and ibsm-route-report.txt."},
};

}  // namespace ibsm::routing
