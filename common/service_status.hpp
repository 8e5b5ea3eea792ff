// The one-line status a service manager shows for the daemon (systemd's
// `systemctl status`: "Status: ..."), sent with the sd_notify datagram protocol
// to $NOTIFY_SOCKET. Written here rather than linking libsystemd: the protocol is
// one datagram, and without $NOTIFY_SOCKET (not under systemd) it does nothing.
#pragma once

#include <string_view>

namespace ibsm {

// Sends "STATUS=<text>". Returns false when there is no socket or the send failed
// (a status line is never worth failing for).
bool notify_service_status(std::string_view text);

}  // namespace ibsm
