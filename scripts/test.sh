#!/bin/sh
# Runs every test: unit tests (fake transport, injected clock) and integration
# tests on ibsim against ibsm and Debian's opensm. Installs what it needs first.
# Ends with "N passed, N failed" and exits non-zero if anything failed.
# Arguments go to `meson test` (e.g. --suite unit); then it builds first and runs
# only what they select.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
cd "$top"
export IBSM_REQUIRE=1
logs=build/meson-logs
status=0
if [ "$#" -gt 0 ]; then
  "$top/scripts/build.sh"
  meson test -C build --print-errorlogs --num-processes 2 "$@" || status=$?
  results="$logs/testlog.json"
else
  # The ibsim suite needs only the daemon and the agent, and it mostly waits (on
  # SM timers and the simulator), so it runs while the rest of the tree (mostly
  # the unit tests) compiles. The compiler runs niced so the waiting tests get
  # the CPU when they want it; the build takes up the rest. On a clean 2-core
  # machine this hides the ibsim suite's minutes inside the build's.
  if [ ! -f build/build.ninja ]; then
    meson setup build --werror -Ddebug=false >/dev/null  # as scripts/build.sh does
  fi
  ninja -C build --quiet sm/ibsm agent/ibsm-agent
  mkdir -p "$logs"
  rm -f "$logs/testlog.json" "$logs/testlog-ibsim.json"
  meson test -C build --no-rebuild --print-errorlogs --num-processes 2 --suite ibsim \
    --logbase testlog-ibsim >"$logs/ibsim-console.txt" 2>&1 &
  ibsim_pid=$!
  if nice -n 10 "$top/scripts/build.sh"; then
    meson test -C build --no-rebuild --print-errorlogs --num-processes 2 --no-suite ibsim \
      || status=$?
  else
    status=$?
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
