#!/bin/sh
# Quick start: runs ibsm as the master SM of a simulated 2-level fat tree
# (fabrics/ft2-324.net: 36 switches, 324 hosts) under ibsim, prints what it
# brought up, and keeps sweeping until Ctrl-C, like the real service. The PerfMgr
# runs and the metrics endpoint listens on a free loopback port: the status page and
# /metrics URLs are printed (docs/metrics.md).
#   scripts/demo.sh [NETFILE] [extra ibsm flags...]
# IBSM_BIN=PATH runs that ibsm instead of building ./build's (the tests use it).
# However it ends (Ctrl-C, SIGTERM, an error), it leaves no process and no file behind:
# the simulator, the SM and the URL waiter are stopped and its /tmp/ibsm-demo.* is gone
# (tests/ibsim/test_demo.py sends it SIGINT as a terminal does and checks).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
if [ -n "${IBSM_BIN:-}" ]; then
  ibsm=$IBSM_BIN
else
  # Only the daemon: the tests and benchmarks are for scripts/test.sh (docs/testing.md).
  "$top/scripts/build.sh" daemon/ibsm
  ibsm=$top/build/daemon/ibsm
fi
net=${1:-$top/fabrics/ft2-324.net}
[ $# -gt 0 ] && shift
work=$(mktemp -d /tmp/ibsm-demo.XXXXXX)
export IBSIM_SOCKNAME="ibsm-demo-$$"
# Stops one child: SIGTERM, up to 5 s for it to go, then SIGKILL; reaps it.
stop() {
  [ -n "$1" ] || return 0
  kill "$1" 2>/dev/null || return 0
  n=0
  while kill -0 "$1" 2>/dev/null && [ $n -lt 50 ]; do
    sleep 0.1
    n=$((n + 1))
  done
  kill -9 "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
# Runs once, whatever ended the script; no command in it may stop it early (set -e is
# off here: a child that has already exited is not an error).
cleanup() {
  status=$?
  trap - EXIT INT TERM HUP
  set +e
  exec 9>&-
  [ -n "${waiter_pid:-}" ] && pkill -P "$waiter_pid" 2>/dev/null
  stop "${waiter_pid:-}"
  stop "${sm_pid:-}"
  stop "${sim_pid:-}"
  # A child started as the signal came, before its pid reached a variable (a Ctrl-C just
  # after "logs and dumps in" lands between the SM's fork and `sm_pid=$!`): any left.
  for pid in $(pgrep -P $$); do stop "$pid"; done
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
# Background children of a non-interactive shell ignore SIGINT, so the terminal's Ctrl-C
# reaches only this shell: it stops them itself.
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
cd "$work"
# ibsim reads console commands from stdin; keep it open and quiet.
mkfifo console
ibsim -s -n -N 20000 -S 4000 -P 200000 "$net" <console >ibsim.log 2>&1 &
sim_pid=$!
exec 9>console
# Ready when it says so and its (abstract) control socket is bound.
i=0
until grep -q "Network simulator ready." ibsim.log 2>/dev/null &&
  grep -q "@$IBSIM_SOCKNAME:ctl" /proc/net/unix; do
  i=$((i + 1))
  if [ $i -gt 600 ] || ! kill -0 "$sim_pid" 2>/dev/null; then
    echo "ibsim did not start:" >&2; cat ibsim.log >&2; exit 1
  fi
  sleep 0.1
done
echo "ibsim: simulating $(grep -c '^Switch' "$net") switches and $(grep -c '^Hca\|^Ca' "$net") hosts from $net"
# A free loopback port for the status page and /metrics (localhost only).
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
echo "ibsm: starting as SM on the first host; sweeping every 5 s; Ctrl-C to stop"
echo "ibsm: logs and dumps in $work (removed at the end)"
echo "ibsm: status page  http://127.0.0.1:$port/"
echo "ibsm: metrics      http://127.0.0.1:$port/metrics"
LD_PRELOAD=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so OSM_CACHE_DIR="$work" \
  "$ibsm" -f stdout -s 5 --dump_files_dir "$work" \
  --perfmgr --perfmgr_sweep_time_s 10 --metrics-listen "127.0.0.1:$port" "$@" &
sm_pid=$!
# The SM's log scrolls the URLs away: say them again once the subnet is up.
(
  up="import sys, urllib.request
t = urllib.request.urlopen('http://127.0.0.1:$port/metrics', timeout=2).read().decode()
sys.exit(0 if [l for l in t.splitlines() if l.startswith('ibsm_last_subnet_up_time_seconds ') and l != 'ibsm_last_subnet_up_time_seconds 0'] else 1)"
  i=0
  until python3 -c "$up" 2>/dev/null; do
    i=$((i + 1))
    [ $i -gt 1200 ] || ! kill -0 "$sm_pid" 2>/dev/null && exit 0
    sleep 0.5
  done
  echo "ibsm: SUBNET UP; status page http://127.0.0.1:$port/ and metrics http://127.0.0.1:$port/metrics"
) &
waiter_pid=$!
wait "$sm_pid"
