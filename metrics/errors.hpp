// Error IDs of the Prometheus endpoint (metrics/, range 8701-8749). Catalog rows
// feed docs/errors.md.
#pragma once

#include "common/error.hpp"

namespace ibsm::metrics {

inline constexpr ErrorId kErrMetricsListen{8701};
inline constexpr ErrorId kErrMetricsBind{8702};
inline constexpr ErrorId kErrMetricsPrecompute{8703};
inline constexpr ErrorId kErrMetricsShed{8704};
inline constexpr ErrorId kErrMetricsRequestRefused{8705};

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
    {kErrMetricsShed, "The endpoint dropped or refused a connection",
     "All 256 connections the endpoint allows were open when another came. The one that had "
     "waited longest for its request head (a slow or idle client) was closed to make room, or, "
     "when every open connection was being answered, the new one was refused. Logged at most once "
     "per 10 s with the count and the last peer's address.",
     "Scrapes keep working: a new client always finds room unless every connection is busy "
     "taking an answer. Many such lines name clients that open connections and send little or "
     "nothing (a slowloris attack or a broken scraper): find the peer, or bind metrics_listen "
     "to an address only Prometheus can reach."},
    {kErrMetricsRequestRefused, "The endpoint closed a slow or oversized request",
     "A client did not send its whole request head within 10 s of connecting (or of its "
     "previous answer), sent a request line and headers of more than 8 KiB (answered 431), or "
     "did not take an answer in time (each 256 KiB within 10 s, the whole within 120 s). "
     "Logged at most once per 10 s with the count and the last peer's address.",
     "Nothing to do for a single line. Many name a client that holds connections open on "
     "purpose or a very slow network path to the scraper; the other clients are served "
     "meanwhile."},
};

}  // namespace ibsm::metrics
