// Error IDs of the MAD layer (range 1xxx). Catalog rows feed docs/errors.md.
#pragma once

#include "common/error.hpp"

namespace ibsm::mad {

inline constexpr ErrorId kErrMalformedMad{1001};
inline constexpr ErrorId kErrInvalidAttribute{1002};
inline constexpr ErrorId kErrMadTimeout{1003};
inline constexpr ErrorId kErrMadStatus{1004};
inline constexpr ErrorId kErrSendFailed{1005};
inline constexpr ErrorId kErrPortOpen{1006};
inline constexpr ErrorId kErrPortNotFound{1007};
inline constexpr ErrorId kErrAgentRegister{1008};
inline constexpr ErrorId kErrUnexpectedResponse{1009};
inline constexpr ErrorId kErrSpeedFields{1010};
inline constexpr ErrorId kErrUmadUnavailable{1011};
inline constexpr ErrorId kErrUmadOpen{1012};
inline constexpr ErrorId kErrClassRegister{1013};
inline constexpr ErrorId kErrIssm{1014};
inline constexpr ErrorId kErrPortNotInfiniband{1015};
inline constexpr ErrorId kErrAnswerMismatch{1016};

inline constexpr ErrorInfo kMadErrors[] = {
    {kErrMalformedMad, "Malformed MAD",
     "A MAD received from the fabric is too short or its header is not a valid SMP.",
     "Usually a faulty device or firmware. The MAD is dropped; the node's GUID or DR path is in "
     "the log line. If it repeats, check that node's firmware."},
    {kErrInvalidAttribute, "Invalid attribute contents",
     "A node answered with an attribute whose values break the IBA rules (e.g. a NodeInfo with "
     "zero ports or GUID 0, a PortInfo with an undefined PortPhysicalState or a LinkWidthActive "
     "of more than one width).",
     "The node is left out of this sweep and retried on the next (a port's undefined "
     "PortPhysicalState or LinkWidthActive is only logged, the port kept as read); fabric "
     "health counts each such answer (hm_num_illegal). Check the node named in the log."},
    {kErrMadTimeout, "MAD timed out",
     "No response arrived within transaction_timeout after all transaction_retries.",
     "The node or link may be down or overloaded. The sweep completes without it and the next "
     "sweep retries. Raise transaction_timeout on very slow management CPUs."},
    {kErrMadStatus, "MAD error status",
     "A node answered with a non-zero MAD status (unsupported attribute, invalid value).",
     "The log names the attribute and the status. The SM continues; check the node's firmware "
     "if the status is unexpected."},
    {kErrSendFailed, "MAD send failed",
     "The local MAD interface refused a send (umad_send failed).",
     "Check that the local port is up and that no other process holds the SM's MAD agent."},
    {kErrPortOpen, "Cannot open local port (no longer emitted)",
     "Emitted by ibsm before the port-opening errors were split by step: now IBSM-1011 "
     "(no MAD interface) or IBSM-1012 (umad device refused).",
     "See IBSM-1011 and IBSM-1012."},
    {kErrPortNotFound, "Local port not found",
     "No local port matches the GUID given with -g/--guid, or no port is usable.",
     "List local ports with `ibstat -p` and pass one of them with -g."},
    {kErrAgentRegister, "Cannot register MAD agent (no longer emitted)",
     "Emitted by ibsm before the port-opening errors were split by step: now IBSM-1013 "
     "(class registration refused) or IBSM-1014 (IsSM refused).",
     "See IBSM-1013 and IBSM-1014."},
    {kErrUnexpectedResponse, "Unexpected MAD response",
     "A response arrived whose TID matches no outstanding request (late or duplicate).",
     "Harmless when rare (a response after its timeout). Frequent ones mean "
     "transaction_timeout is too short for this fabric."},
    {kErrSpeedFields, "Contradictory PortInfo speed fields",
     "A port answered PortInfo (read with SMSupportsExtendedSpeeds where it advertises "
     "extended speeds) with speed fields that contradict each other: "
     "IsExtendedSpeedsSupported but no extended speed supported, an active speed code that "
     "names no speed or one the port does not support, undefined XDR bits. The message names "
     "the node, port, DR path and each field with its value. A heavy sweep names the first "
     "8 such ports and counts the others in one more line (ibsim, for one, shows the first "
     "contradiction on every port).",
     "The SM counts the port with the speeds the fields agree on (the classic 2.5/5/10 Gb/s "
     "ones when the extended fields are in doubt: PathRecord rates and dumps show those) and "
     "brings the link up as usual. Update the device's firmware; check the port with "
     "smpquery portinfo."},
    {kErrUmadUnavailable, "No MAD interface",
     "libibumad found no umad device to open: umad_init failed or no InfiniBand port has a "
     "/dev/infiniband/umadN (the ib_umad module is not loaded, or the HCA driver is not up). "
     "ibsm exits with status 1; under systemd it is restarted with back-off.",
     "modprobe ib_umad (and the HCA driver, e.g. mlx5_ib); check ls /dev/infiniband and "
     "ibstat."},
    {kErrUmadOpen, "umad device refused",
     "Opening the port's /dev/infiniband/umadN failed. The message names the device and port, "
     "the errno and the likely cause: ENOENT/ENODEV the module or device is missing, "
     "EACCES/EPERM no permission, others a kernel that refuses. ibsm exits with status 1 "
     "(systemd restarts it with back-off).",
     "Load ib_umad, run ibsm as root (or give its user the device), or check dmesg for the "
     "kernel's reason."},
    {kErrClassRegister, "Management class not registered",
     "The kernel refused to register ibsm's MAD agent for a management class (129 = 0x81 "
     "directed-route SMPs, 1 LID-routed SMPs, 3 SA) on the port: OpenSM's \"Unable to register "
     "class 129\". The message names the device and port, the errno and the likely cause: "
     "another SM or agent holding the class (opensm, a second ibsm), no permission, or a kernel "
     "that refuses SMI registrations. ibsm exits with status 1 (systemd restarts it with "
     "back-off).",
     "Stop the other SM on this port (systemctl stop opensm); run as root; after a kernel "
     "upgrade check dmesg and try the previous kernel."},
    {kErrIssm, "SM capability (IsSM) refused",
     "Opening the port's /dev/infiniband/issmN, which raises IsSM in the port's "
     "CapabilityMask, failed. EAGAIN/EBUSY (another SM holds it) and EACCES/EPERM stop ibsm "
     "with status 1; other refusals are logged at start and ibsm runs without IsSM (other SMs "
     "then do not see it as an SM).",
     "Stop the other subnet manager on this port, or run ibsm as root."},
    {kErrPortNotInfiniband, "Port cannot carry a subnet manager",
     "The port chosen with -g/--guid has a link layer other than InfiniBand (a RoCE/Ethernet "
     "port has a umad device too). ibsm exits with status 2, which systemd does not restart.",
     "Pass the GUID of an InfiniBand port (ibstat -p; ibstat shows each port's link layer)."},
    {kErrAnswerMismatch, "MAD answer does not match its request",
     "An SMP or Congestion Control answer carried the TID of an outstanding request but "
     "not the rest of it (IBA 13.4.6.4, 14.2.2): another method than GetResp, another "
     "attribute or attribute modifier, a source LID other than the request's destination, "
     "or, for a directed-route SMP, other DR fields (D bit, hop count, hop pointer, initial "
     "path). The answer is dropped and counted; the request keeps waiting for its real "
     "answer (and is retried as usual). The line names the claimed source (LID, or the DR "
     "path) and the field that differs. At most 5 such lines a second; the next line says "
     "how many were not logged.",
     "A device with broken firmware, or a host forging answers to steer the SM. The real "
     "answer is still taken, so the fabric is not affected. Find the source LID with "
     "`ibsm-ctl querylid LID` or ibnetdiscover; if it is not the device that was asked, "
     "someone with root on that host is sending MADs."},
};

}  // namespace ibsm::mad
