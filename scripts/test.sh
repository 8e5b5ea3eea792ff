#!/bin/sh
# Runs every test: unit tests (fake transport, injected clock), fuzz replays of every
# decoder, and integration tests on ibsim against ibsm and Debian's opensm, all on one
# build: ./build-asan, the whole tree with AddressSanitizer + UndefinedBehaviorSanitizer
# at -O1 (docs/testing.md, "One sanitized build"). Installs what it needs first.
# Ends with "N passed, N failed" and exits non-zero if anything failed.
# Arguments go to `meson test` (e.g. --suite unit); then it builds first and runs only
# what they select.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
cd "$top"
export IBSM_REQUIRE=1
tree=build-asan
logs=$tree/meson-logs
status=0
if [ ! -f "$tree/build.ninja" ]; then
  meson setup "$tree" --werror -Ddebug=false -Doptimization=1 \
    -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
fi
if [ "$#" -gt 0 ]; then
  ninja -C "$tree" >/dev/null
  meson test -C "$tree" --no-rebuild --print-errorlogs --num-processes 2 "$@" || status=$?
  results="$logs/testlog.json"
else
  # Ordered for a 2-core machine: the ibsim suite mostly waits (on SM timers and the
  # simulator), so it runs beside the rest of the build, which runs niced so the waiting
  # tests get the CPU they want. It needs only the daemon, the agent and ibsm-ctl.
  ninja -C "$tree" --quiet sm/ibsm agent/ibsm-agent ctl/ibsm-ctl
  mkdir -p "$logs"
  rm -f "$logs/testlog.json" "$logs/testlog-ibsim.json"
  meson test -C "$tree" --no-rebuild --print-errorlogs --num-processes 2 --suite ibsim \
    --logbase testlog-ibsim >"$logs/ibsim-console.txt" 2>&1 &
  ibsim_pid=$!
  if nice -n 10 ninja -C "$tree" >"$logs/build-console.txt" 2>&1; then
    meson test -C "$tree" --no-rebuild --print-errorlogs --num-processes 2 --no-suite ibsim \
      || status=$?
  else
    status=$?
    tail -50 "$logs/build-console.txt" >&2
    echo "test.sh: the build failed; waiting for the ibsim suite" >&2
  fi
  wait "$ibsim_pid" || status=$?
  cat "$logs/ibsim-console.txt"
  results="$logs/testlog.json $logs/testlog-ibsim.json"
fi
# shellcheck disable=SC2086
/usr/bin/python3 - $results <<'PY'
import json, os, sys
passed = failed = skipped = 0
for path in sys.argv[1:]:
    if not os.path.exists(path):
        failed += 1  # that run did not even start its tests
        print(f"{path}: missing", file=sys.stderr)
        continue
    for line in open(path):
        r = json.loads(line)
        res = r.get("result")
        if res in ("OK", "EXPECTEDFAIL"): passed += 1
        elif res == "SKIP": skipped += 1
        else: failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
exit $status
