// ibsm-agent's operator-visible errors (range 6xxx). Every plan error, apply
// failure and refusal the agent prints carries one of these IDs; the catalog
// below is what docs/errors.md is generated from.
#pragma once

#include "common/error.hpp"

namespace ibsm::agent {

// 60xx: the node file.
inline constexpr ErrorId kNodeFileUnreadable{6001};
inline constexpr ErrorId kNodeFileSyntax{6002};
inline constexpr ErrorId kNodeFileUnknownKey{6003};
inline constexpr ErrorId kNodeFileBadValue{6004};
inline constexpr ErrorId kNodeFileBadName{6005};
inline constexpr ErrorId kNodeFileBadAddress{6006};

// 61xx: plan-time validation (known run-time failures caught before apply).
inline constexpr ErrorId kInvalidPKey{6101};
inline constexpr ErrorId kNameTooLong{6102};
inline constexpr ErrorId kConnectedModeUnsupported{6103};
inline constexpr ErrorId kMtuTooLarge{6104};
inline constexpr ErrorId kNotInfiniBand{6105};
inline constexpr ErrorId kKernelSupportMissing{6106};
inline constexpr ErrorId kDeviceNotFound{6107};
inline constexpr ErrorId kNetdevNotFound{6108};
inline constexpr ErrorId kDuplicateInterface{6109};
inline constexpr ErrorId kForeignObject{6110};
inline constexpr ErrorId kBadAddress{6111};

// 62xx: apply.
inline constexpr ErrorId kDisruptiveRefused{6201};
inline constexpr ErrorId kStepFailed{6202};
inline constexpr ErrorId kWriteFailed{6203};
inline constexpr ErrorId kCommandFailed{6204};
inline constexpr ErrorId kBusy{6205};

// 63xx: observing the system.
inline constexpr ErrorId kReadFailed{6301};
inline constexpr ErrorId kPortQueryFailed{6302};
// Warnings: the agent plans on with a broadcast group MTU of 2048.
inline constexpr ErrorId kGroupMtuNoAnswer{6303};
inline constexpr ErrorId kGroupMtuRejected{6304};
// An answer on the agent's own MAD agent that does not belong to its request (dropped).
inline constexpr ErrorId kMadAnswerMismatch{6305};
// A name read from sysfs or an owned file that the agent's grammars refuse (ignored).
inline constexpr ErrorId kUnsafeObservedName{6306};

// 64xx: command line.
inline constexpr ErrorId kUsage{6401};

// 65xx: the node service (backends chosen by what runs, watch, verify --wait).
inline constexpr ErrorId kIfupdownSnippetsUnread{6501};
inline constexpr ErrorId kWatchFailed{6502};
inline constexpr ErrorId kWaitTimedOut{6503};
inline constexpr ErrorId kCheckpointFailed{6504};
inline constexpr ErrorId kRolledBack{6505};

// 612x-614x: the guide's remaining checks (partition fit, DCB, memlock in force, ibping
// answering, the RDMA round trip).
inline constexpr ErrorId kPartitionMisfit{6120};
inline constexpr ErrorId kPingResponderFailed{6121};

inline constexpr ErrorInfo kAgentErrors[] = {
    {kNodeFileUnreadable, "Node file unreadable",
     "The node file named with -c could not be opened or read.",
     "Check the path and permissions; the default is /etc/ibsm/node.toml."},
    {kNodeFileSyntax, "Node file is not valid TOML",
     "The TOML parser stopped at the file:line:column given in the message.",
     "Fix the syntax at that position."},
    {kNodeFileUnknownKey, "Unknown key in node file",
     "A key the agent does not know was found; unknown keys are errors so that typos do not "
     "silently drop configuration.",
     "Correct the key name (see docs/agent.md for every key) or remove it."},
    {kNodeFileBadValue, "Bad value in node file",
     "A key has a value of the wrong type or outside its allowed set.",
     "Use one of the values listed in the message."},
    {kNodeFileBadName, "Bad name in node file",
     "An interface, RDMA device, kernel module, group or service name does not match its "
     "grammar (interfaces: [A-Za-z0-9_.:-], 1 to 15 characters, not . or ..; the message names "
     "the grammar). Names end up in paths, in commands and in files the agent renders, some "
     "of which a shell runs (ifupdown's pre-up/up/down lines), so the agent refuses the whole "
     "file and changes nothing.",
     "Correct the name at the file:line:column given."},
    {kNodeFileBadAddress, "Bad address in node file",
     "An address is not an IPv4 or IPv6 address (as inet_pton reads it) followed by / and a "
     "prefix length of 0..32 or 0..128, with nothing else in the string. The agent refuses the "
     "whole file and changes nothing.",
     "Write addresses as 10.0.0.5/16 or fd00::5/64."},
    {kInvalidPKey, "Invalid P_Key",
     "P_Key 0x0000 and 0x8000 are reserved and the kernel, NetworkManager and systemd-networkd "
     "reject them; values above 0xffff do not exist.",
     "Use a P_Key between 0x0001 and 0x7fff (the full-member bit is added by the agent)."},
    {kNameTooLong, "Interface name too long",
     "Linux interface names are at most 15 characters; longer names are rejected by netlink and "
     "silently truncated by the legacy sysfs path and NetworkManager.",
     "Give the interface a shorter name."},
    {kConnectedModeUnsupported, "Connected mode not supported",
     "The parent's hardware address lacks the connected-mode capability flag (enhanced IPoIB, "
     "ConnectX-4 and later, is datagram-only); the kernel would answer EINVAL.",
     "Use mode = \"datagram\" on this port."},
    {kMtuTooLarge, "MTU too large",
     "The requested MTU is above what the IPoIB mode allows: datagram mode is limited to the "
     "broadcast group's IB MTU minus 4 (2044 for a 2048 group), connected mode to 65520.",
     "Lower the MTU, switch to connected mode, or raise the partition's MTU in the SM."},
    {kNotInfiniBand, "Port link layer mismatch",
     "IPoIB needs an InfiniBand port and a RoCE mode needs an Ethernet port; the port named has "
     "the other link layer.",
     "Point the entry at a port with the right link layer."},
    {kKernelSupportMissing, "Kernel support missing",
     "A kernel module or facility the configuration needs (ib_ipoib, rdma_rxe, siw, rdma_cm "
     "configfs) is neither loaded nor installed.",
     "Install the kernel modules package for the running kernel, or drop the entry."},
    {kDeviceNotFound, "RDMA device or port not found",
     "The node file names an RDMA device, port or port GUID that this host does not have.",
     "Use one of the devices listed in the message (see `ibsm-agent show`)."},
    {kNetdevNotFound, "Network device not found",
     "The node file names a network interface that does not exist, or no IPoIB interface "
     "belongs to the port.",
     "Use one of the interfaces listed in the message."},
    {kDuplicateInterface, "Duplicate interface",
     "Two entries would create the same interface name or the same P_Key child twice.",
     "Remove one of the entries."},
    {kForeignObject, "Object not owned by the agent",
     "A file, profile or interface the agent would create already exists without the agent's "
     "ownership marker; the agent never changes what it did not create.",
     "Remove or rename the existing object yourself, or drop the entry from the node file."},
    {kBadAddress, "Bad IP address", "An address is not in address/prefix form.",
     "Write addresses as 10.0.0.5/16 or fd00::5/64."},
    {kPartitionMisfit, "Partition's broadcast group does not suit the port",
     "verify read the partition's IPoIB broadcast group (MCMemberRecord) and the port's "
     "PortInfo from the SA: the group's rate is above the port's active rate, or its MTU above "
     "the port's active (neighbor) MTU. The SA refuses such a join (OpenSM's check, which ibsm "
     "shares), so the IPoIB interface never gets carrier. The Red Hat guide warns about this "
     "when partitions.conf sets rate= or mtu= higher than some members support.",
     "Lower rate= and mtu= of the partition in the SM's partitions.conf to what the slowest "
     "member supports (or fix the port's link), then reload the SM."},
    {kPingResponderFailed, "ibping responder cannot serve the port",
     "`ibsm-agent ping-responder` opens the port through libibumad and registers the vendor "
     "class 0x32 with the OpenIB OUI 0x001405, as `ibping -S` does. Opening the port, the "
     "registration or a send failed; only one process per port can serve the class, so a "
     "running `ibping -S` (or another responder) makes the registration fail.",
     "Check that ib_umad is loaded and the agent runs as root, stop any `ibping -S` on the "
     "port, and name the port with --ca/--ca-port."},
    {kDisruptiveRefused, "Disruptive change refused",
     "The change (mode switch, MTU change, link down) would interrupt the interface carrying "
     "the default route or the management connection.",
     "Apply from a console, or pass --force if the interruption is acceptable."},
    {kStepFailed, "Apply step failed",
     "One action of the plan failed; actions after it were not run. The report lists what was "
     "done and what was not.",
     "Fix the cause in the message and run apply again; plan shows what is left."},
    {kWriteFailed, "File write failed",
     "A file could not be written atomically (temporary file, fsync, rename).",
     "Check free space, permissions and that the directory exists."},
    {kCommandFailed, "Command failed",
     "An external command (ip, rdma, nmcli, networkctl, modprobe) exited non-zero.",
     "Read the command's output in the message."},
    {kBusy, "Another apply is running",
     "Applies are serialised with a lock on /run/ibsm-agent.lock; another run (the boot or hotplug "
     "unit, or an operator) holds it.",
     "Wait for the other run to finish and apply again."},
    {kReadFailed, "System state unreadable", "A sysfs, configfs or /etc file could not be read.",
     "Check that --root points at a complete tree and that the agent runs with enough privilege."},
    {kPortQueryFailed, "Port query failed",
     "libibumad could not list the RDMA devices or read a port.",
     "Check that ib_umad is loaded (or that umad2sim is preloaded for a simulated fabric)."},
    {kGroupMtuNoAnswer, "SA did not answer the broadcast group query (warning)",
     "broadcast_mtu = \"auto\" asks the Subnet Administrator for the MCMemberRecord of each "
     "partition's IPoIB broadcast group. The port is not ACTIVE or has no SM LID yet, the port "
     "could not be opened through libibumad, or no answer came within the deadline (1 s, 2 "
     "retries). The agent plans on with OpenSM's default of 2048 and does not ask again for "
     "other P_Keys of that port in this run.",
     "Check that an SM is master (`sminfo`) and the port is ACTIVE, then run the agent again; or "
     "write broadcast_mtu as a number in the node file."},
    {kGroupMtuRejected, "SA has no usable broadcast group (warning)",
     "The Subnet Administrator answered the MCMemberRecord query for the partition's IPoIB "
     "broadcast group with an error status (0x0300 no records: the partition has no `ipoib` "
     "flag in partitions.conf, or nobody created the group yet) or with a record the agent "
     "cannot use. The agent plans on with 2048.",
     "Add `ipoib` (and `mtu=`) to the partition in the SM's partitions.conf, or write "
     "broadcast_mtu as a number in the node file."},
    {kMadAnswerMismatch, "MAD answer does not match the request (dropped)",
     "An answer reached the agent's MAD agent (SA queries, ibping) whose TID, source LID, "
     "attribute ID or attribute modifier differs from the request it claims to answer; any "
     "host on the fabric can send such a MAD. The agent drops it and waits on for the real "
     "answer. Logged at most once a second, with a count of the others dropped.",
     "None if rare. Many of them mean a host on the fabric forges answers: find it by the "
     "source LID in the message (ibsm-ctl, smpquery nodedesc)."},
    {kUnsafeObservedName, "Name from the system refused (ignored)",
     "A network interface or RDMA device name read from sysfs, or an interface name read from "
     "one of the agent's own files, does not match the agent's grammar ([A-Za-z0-9_.:-], not . "
     "or ..). The kernel allows more; the agent leaves such an object alone rather than put "
     "the name into a path, a command or a rendered file.",
     "Rename the interface (ip link set NAME name NEW) if the agent should manage it."},
    {kUsage, "Command line error", "The command line could not be parsed.",
     "See ibsm-agent --help or ibsm-agent(8)."},
    {kIfupdownSnippetsUnread, "ifupdown does not read /etc/network/interfaces.d",
     "The ifupdown backend writes one stanza per IPoIB interface to "
     "/etc/network/interfaces.d, but /etc/network/interfaces has no `source` or "
     "`source-directory` line for that directory, so ifup would never see them.",
     "Add `source /etc/network/interfaces.d/*` to /etc/network/interfaces (Debian's default), "
     "or choose another backend with --backend or agent.backend."},
    {kWatchFailed, "watch cannot observe the host",
     "`ibsm-agent watch` could not read the ports or the node file at start, or could not set "
     "up its signal handling; it exits so that systemd restarts it.",
     "Read the message; check the node file with `ibsm-agent plan` and the ports with "
     "`ibsm-agent show`."},
    {kWaitTimedOut, "verify --wait timed out",
     "`verify --wait` polled until its deadline and some resource was still not ok; the last "
     "verdicts are printed, and each line says what it was waiting for (port ACTIVE, a P_Key "
     "the SM has not programmed, carrier on an IPoIB interface).",
     "Check the SM (`sminfo`, its partitions.conf) and the port; run `ibsm-agent verify` to "
     "see the current state."},
    {kCheckpointFailed, "NetworkManager checkpoint failed",
     "apply takes a NetworkManager checkpoint (D-Bus CheckpointCreate through busctl) before "
     "the first NetworkManager action, to roll back to it if an action fails. The call failed, "
     "so nothing was applied; or a rollback or destroy call failed, as the message says.",
     "Check that NetworkManager runs and that the agent runs as root (the D-Bus policy allows "
     "checkpoints to root only); `busctl status org.freedesktop.NetworkManager`."},
    {kRolledBack, "Apply rolled back",
     "An action failed. The files this apply wrote were restored to their previous versions "
     "(kept under /var/lib/ibsm-agent/previous), P_Key children it created were deleted and, "
     "under NetworkManager, its checkpoint was rolled back; the message lists the failure and "
     "what was restored.",
     "Fix the cause in the message (the failing command's output is included) and apply again."},
};

}  // namespace ibsm::agent
