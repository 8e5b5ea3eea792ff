// Error IDs of congestion control (range 26xx, part of the SM core's 2xxx).
// Catalog rows feed docs/errors.md.
#pragma once

#include "common/error.hpp"

namespace ibsm::sm::cc {

inline constexpr ErrorId kErrCcRefused{2601};
inline constexpr ErrorId kErrCcSilent{2602};
inline constexpr ErrorId kErrCcBadAnswer{2603};
inline constexpr ErrorId kErrCcUnavailable{2604};
inline constexpr ErrorId kErrCcSendFailed{2605};

inline constexpr ErrorInfo kCcErrors[] = {
    {kErrCcRefused, "Node refused a congestion control Set",
     "A switch or CA port answered a Congestion Control (class 0x21) Set with an error MAD "
     "status: the class, method or attribute is not supported (no CC agent, as on most HCAs "
     "without CC firmware), or the CC_Key or a value was refused. Logged once; the node is "
     "skipped while it stays in the fabric (OpenSM's cc_unavailable_flag).",
     "If the node should do congestion control, check its firmware and that cc_key is the key "
     "it holds. A node that leaves the fabric and comes back is tried again, and so is every "
     "node when SIGHUP changes a cc_* key."},
    {kErrCcSilent, "Node did not answer congestion control MADs",
     "A Congestion Control Set got no answer after transaction_retries retries of "
     "transaction_timeout ms each. Logged once; the node is skipped while it stays in the "
     "fabric (OpenSM gives up after 3 timeouts).",
     "The node may have no CC agent and a kernel that drops unknown classes, or a wrong "
     "cc_key (nodes drop MADs with a wrong CC_Key). Sweeps are not affected."},
    {kErrCcBadAnswer, "Malformed congestion control answer",
     "A node answered a Congestion Control Set with a MAD that is not a CC GetResp of the "
     "same attribute (short, another class or class version, another attribute or "
     "modifier). Logged once; the node is skipped while it stays in the fabric.",
     "A firmware problem on that node; the rest of the fabric is programmed."},
    {kErrCcUnavailable, "Congestion control cannot be sent on this port",
     "congestion_control is TRUE but no agent for class 0x21 could be registered on the SM's "
     "port. Under ibsim's umad2sim this is deliberate: ibsim hands a class 0x21 MAD to its "
     "SMP handlers (it dispatches on class & 0xf), so a CACongestionSetting Set would be "
     "applied as a P_KeyTable Set of stack garbage. The SM runs without congestion control.",
     "On real hardware check that ib_umad is loaded and no other process holds a class 0x21 "
     "agent on the port. Under ibsim nothing is to be done: test CC on hardware."},
    {kErrCcSendFailed, "Congestion control MAD could not be sent",
     "The transport refused a Congestion Control Set (umad_send failed). The node is tried "
     "again in the next round.",
     "Usually transient (kernel send queue full); check the SM port if it persists."},
};

}  // namespace ibsm::sm::cc
