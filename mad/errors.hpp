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

inline constexpr ErrorInfo kMadErrors[] = {
    {kErrMalformedMad, "Malformed MAD",
     "A MAD received from the fabric is too short or its header is not a valid SMP.",
     "Usually a faulty device or firmware. The MAD is dropped; the node's GUID or DR path is in "
     "the log line. If it repeats, check that node's firmware."},
    {kErrInvalidAttribute, "Invalid attribute contents",
     "A node answered with an attribute whose values break the IBA rules (e.g. a NodeInfo with "
     "zero ports or GUID 0).",
     "The node is left out of this sweep and retried on the next. Check the node named in the "
     "log."},
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
    {kErrPortOpen, "Cannot open local port",
     "The local InfiniBand port could not be opened through libibumad.",
     "Check that ib_umad is loaded, /dev/infiniband/umad* exist and ibsm runs as root."},
    {kErrPortNotFound, "Local port not found",
     "No local port matches the GUID given with -g/--guid, or no port is usable.",
     "List local ports with `ibstat -p` and pass one of them with -g."},
    {kErrAgentRegister, "Cannot register MAD agent",
     "Registering for SMP classes failed, typically because another SM runs on this port.",
     "Stop the other subnet manager on this port (opensm) or use another port."},
    {kErrUnexpectedResponse, "Unexpected MAD response",
     "A response arrived whose TID matches no outstanding request (late or duplicate).",
     "Harmless when rare (a response after its timeout). Frequent ones mean "
     "transaction_timeout is too short for this fabric."},
};

}  // namespace ibsm::mad
