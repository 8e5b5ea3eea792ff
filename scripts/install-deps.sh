#!/bin/sh
# Installs what building and running ibsm need on Debian 12 (scripts/demo.sh), and with
# --tests also what its tests need (scripts/test.sh), from Debian's packages only.
# Idempotent: does nothing when everything is there.
# /metrics is served with Boost.Beast on Asio (headers of libboost1.74-dev, which
# libboost-program-options-dev brings): one thread for every socket, with deadlines
# per request (metrics/http_server.hpp); libcpp-httplib-dev is the tests' and the
# benchmark's HTTP client;
# zlib1g-dev: /metrics keeps the port counters gzip-compressed between PerfMgr sweeps
# (metrics/gzip_join.hpp); libre2-dev matches dump_portguid's user patterns in linear
# time with bounded memory (ctl/port_patterns.hpp; std::regex backtracks);
# nlohmann-json3-dev (header-only) reads the REST API's request bodies and libcrypt-dev
# checks its users' crypt(3) hashes (rest/). For the tests: python3-pytest-xdist runs the ibsim suite on
# several workers (tests/ibsim/meson.build): the suite mostly waits on timers, so that
# cuts its wall time about four times; python3-prometheus-client parses the exposition
# as Prometheus would; prometheus (the server, ~19 MB) scrapes it in
# tests/ibsim/test_metrics.py; chromium (headless) renders the status page in
# tests/ibsim/test_status_page.py, as a browser sees it (both checks are skipped without
# them); network-manager is the agent's keyfile oracle (docs/agent.md); slurmctld
# (Slurm 22.05, 7 packages, 3 MB to download without recommends) is the judge of the
# topology.conf ibsm writes (tests/ibsim/test_slurm_topology.py). The demo does
# not need these, so a first `scripts/demo.sh` does not download a browser.
set -eu
packages="
  build-essential pkg-config meson ninja-build clang-format
  libibumad-dev libibmad-dev libboost-program-options-dev libspdlog-dev libtomlplusplus-dev
  libgtest-dev libgmock-dev libcpp-httplib-dev zlib1g-dev libre2-dev
  nlohmann-json3-dev libcrypt-dev
  ibsim-utils libumad2sim0 infiniband-diags opensm rdma-core python3 systemd
"
if [ "${1:-}" = "--tests" ]; then
  packages="$packages
  python3-pytest python3-pytest-xdist python3-prometheus-client prometheus chromium
  network-manager slurmctld
"
fi
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing Debian packages:$missing (run as root to install them)" >&2
  exit 1
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
