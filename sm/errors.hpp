// Error IDs of the SM core (range 2xxx). Catalog rows feed docs/errors.md.
#pragma once

#include "common/error.hpp"

namespace ibsm::sm {

inline constexpr ErrorId kErrRoutingEngineUnknown{2001};
inline constexpr ErrorId kErrSubnetNotUp{2002};
inline constexpr ErrorId kErrLidSpaceExhausted{2101};
inline constexpr ErrorId kErrNodeUnreachable{2201};
inline constexpr ErrorId kErrNodeBadAnswer{2202};
inline constexpr ErrorId kErrProgrammingFailed{2203};
inline constexpr ErrorId kErrRoutingFailed{2204};
inline constexpr ErrorId kErrDuplicateGuid{2205};
inline constexpr ErrorId kErrGuid2LidRead{2206};
inline constexpr ErrorId kErrGuid2LidWrite{2207};
inline constexpr ErrorId kErrSmPortDown{2208};
inline constexpr ErrorId kErrHopLimit{2209};
inline constexpr ErrorId kErrSecurityTrap{2210};
inline constexpr ErrorId kErrBabblingPort{2220};
inline constexpr ErrorId kErrNoisyTraps{2221};
inline constexpr ErrorId kErrSlurmTopologyWrite{2240};

inline constexpr ErrorInfo kSmErrors[] = {
    {kErrRoutingEngineUnknown, "Unknown routing engine",
     "-R/routing_engine names an engine ibsm does not have.",
     "Use one of the engines ibsm lists in the message, or remove the option (minhop is the "
     "default). ibsm refuses to start rather than silently route differently."},
    {kErrSubnetNotUp, "Subnet not up after -o sweep",
     "In once mode (-o) the single heavy sweep had errors, so ibsm exits non-zero.",
     "Read the preceding warnings (they name the nodes and DR paths) and run again."},
    {kErrLidSpaceExhausted, "No free LID range",
     "The unicast LID space (up to 0xBFFF, or the smallest switch LinearFDBCap) cannot hold "
     "every port with the configured LMC.",
     "Lower lmc, or remove stale entries from guid2lid (ibsm keeps LIDs of absent ports free "
     "while space allows)."},
    {kErrNodeUnreachable, "Node did not answer",
     "A node on the DR path named in the message did not answer an SMP after all retries.",
     "The node or link may be down or overloaded. The rest of the fabric is configured; the next "
     "sweep retries. Check the link with iblinkinfo and the node's management CPU."},
    {kErrNodeBadAnswer, "Node answered garbage",
     "A node answered with an attribute that breaks the IBA rules (e.g. NodeInfo with GUID 0).",
     "The node is left out of this sweep. Check its firmware."},
    {kErrProgrammingFailed, "Programming a device failed",
     "A Set (PortInfo, LFT block, SwitchInfo) was not answered or was answered with an error.",
     "The next sweep is heavy and retries. Repeated failures on one node point at that node."},
    {kErrRoutingFailed, "Routing failed",
     "The routing engine(s) could not route the fabric, or a fallback engine was used.",
     "Read the engine's message; check the topology (ibnetdiscover) or choose another engine."},
    {kErrDuplicateGuid, "Duplicate GUID",
     "Two different nodes answer with the same GUID. With exit_on_fatal TRUE (the default, "
     "as in OpenSM) ibsm exits with status 1; with -y/--stay_on_fatal it leaves the second "
     "node out of the fabric and keeps running.",
     "Find the node with the DR path in the message and fix its GUID (firmware), or run "
     "with -y until it is fixed."},
    {kErrGuid2LidRead, "guid2lid unreadable",
     "The guid2lid cache file could not be read or has malformed lines (they are skipped).",
     "Check the file in OSM_CACHE_DIR (default /var/cache/opensm); ibsm rewrites it after the "
     "next sweep."},
    {kErrGuid2LidWrite, "guid2lid not written",
     "The guid2lid cache file could not be written, so LIDs may change after a restart.",
     "Check that OSM_CACHE_DIR exists and is writable by ibsm, and that the disk is not full."},
    {kErrSmPortDown, "SM port unusable",
     "The SM could not read its own port (the local node does not answer), or its link is "
     "down. ibsm keeps its last fabric model and programs nothing until the link is back "
     "(logged once per outage).",
     "Check the cable and the local HCA (ibstat). ibsm retries every second."},
    {kErrHopLimit, "Directed route too long",
     "A node is more than 63 hops from the SM, beyond what directed-route SMPs can reach.",
     "Run the SM nearer the fabric's centre."},
    {kErrSecurityTrap, "Security trap: a port saw a wrong key",
     "A port reported a management or partition key violation (IBA traps 256-259): 256 Bad "
     "M_Key means someone sent an SMP with a wrong M_Key to a protected port (another SM "
     "with other keys, a tool run with a wrong key, or an attack); 257/258 a packet with a "
     "P_Key or Q_Key the receiver does not hold; 259 a switch port dropped a packet for its "
     "P_Key. The message names the requester and the key used. One line per port and trap "
     "every 10 s; the rest are counted in the next line.",
     "For 256: find the requester LID named (smpquery nodedesc) and check which SM or tool "
     "runs there and with which m_key. For 257-259: check the partitions of the two ports "
     "(partitions.conf) and the application's P_Key/Q_Key."},
    {kErrBabblingPort, "Babbling port disabled",
     "With babbling_port_policy TRUE, a port sent the same port-error trap (129 link "
     "integrity, 130 buffer overrun, 131 flow-control watchdog) 250 times without a 5 s "
     "pause, and the SM disabled it (PortInfo Set: PortState Down, PortPhysicalState "
     "Disabled on the end of the link nearer the SM), as OpenSM does. Routes avoid it from "
     "the next sweep on. Traps that name a port of another node than the one that sent them "
     "are forged and disable nothing (the message says so).",
     "Check or replace the cable and the ports named (perfquery shows their error "
     "counters), then enable the port again (ibportstate <lid> <port> enable) and let the "
     "SM sweep."},
    {kErrNoisyTraps, "Repeated traps ignored",
     "A port sent the same trap (other than 128 and 144, whose notices look alike for "
     "different events) 10 times without a 5 s pause; the SM acknowledges the rest "
     "but neither sweeps nor forwards them to subscribers until they stop (OpenSM's trap "
     "suppression). A port-error trap (129-131) marks its port unhealthy and causes one "
     "heavy sweep. Logged once per burst.",
     "Look at the port named: a flapping link or a failing PHY sends traps like this. "
     "babbling_port_policy TRUE lets the SM disable such a port by itself."},
    {kErrSlurmTopologyWrite, "slurm_topology_file not written",
     "After a heavy sweep that changed Slurm's topology, the SM could not write "
     "slurm_topology_file (its directory is missing or not writable by ibsm, or the disk is "
     "full). The file keeps its last contents; the next heavy sweep tries again.",
     "Make the directory writable by ibsm's user (the message names the path and errno), or "
     "point slurm_topology_file elsewhere and send SIGHUP. `ibsm-ctl topology` prints the "
     "same text meanwhile."},
};

}  // namespace ibsm::sm
