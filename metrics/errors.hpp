// Error IDs of the Prometheus endpoint (metrics/, range 8701-8749). Catalog rows
// feed docs/errors.md.
#pragma once

#include "common/error.hpp"

namespace ibsm::metrics {

inline constexpr ErrorId kErrMetricsListen{8701};
inline constexpr ErrorId kErrMetricsBind{8702};
inline constexpr ErrorId kErrMetricsPrecompute{8703};

inline constexpr ErrorInfo kMetricsErrors[] = {
    {kErrMetricsListen, "metrics_listen is not ADDR:PORT",
     "The value of metrics_listen (--metrics-listen) is not an IPv4 address, a bracketed IPv6 "
     "address or a host name, a colon and a port number 1-65535.",
     "The SM does not start. Write it as 127.0.0.1:9683 or [::1]:9683, or leave it empty for "
     "no endpoint."},
    {kErrMetricsBind, "Cannot listen on metrics_listen",
     "The endpoint's socket could not be bound to the address and port of metrics_listen "
     "(address not on this host, port in use, or below 1024 without the privilege).",
     "The SM does not start: an operator who asked for metrics gets them or a clear stop. Pick a "
     "free port or an address of this host."},
    {kErrMetricsPrecompute, "The endpoint could not prepare an answer",
     "The endpoint's own thread failed to compress the port counters or to draw the status page "
     "for a new snapshot (out of memory, or zlib refused to start).",
     "The SM and its sweeps are not affected. /metrics is then streamed uncompressed and the "
     "page is made per request; the thread tries again with the next snapshot. Check the SM "
     "host's free memory."},
};

}  // namespace ibsm::metrics
