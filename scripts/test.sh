#!/bin/sh
# Runs every test: unit tests (fake transport, injected clock) and integration
# tests on ibsim against ibsm and Debian's opensm, each on the plain build and on a
# sanitizer build (ASan + UBSan). Installs what it needs first.
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
  # The plain build (./build, what users run) and a sanitizer build (./build-asan:
  # AddressSanitizer + UndefinedBehaviorSanitizer; docs/testing.md "Sanitizers"). The
  # ibsim suite runs against both daemons; the unit tests run in the sanitizer build
  # only (the same code, checked harder: compiling them twice would cost CI five
  # minutes). Ordered for a 2-core machine: the ibsim suite mostly waits (on SM timers
  # and the simulator), so its first run goes beside the sanitizer build, which runs
  # niced so the waiting tests get the CPU when they want it.
  asan=build-asan
  if [ ! -f build/build.ninja ]; then
    meson setup build --werror -Ddebug=false >/dev/null  # as scripts/build.sh does
  fi
  if [ ! -f "$asan/build.ninja" ]; then
    meson setup "$asan" --werror -Ddebug=false -Db_sanitize=address,undefined \
      -Db_lundef=false >/dev/null
  fi
  # Every program users get (no tests, no benchmarks).
  ninja -C build --quiet sm/ibsm agent/ibsm-agent partitions/ibsm-part \
    conf/ibsm-gen-config-doc docs/error_catalog
  mkdir -p "$logs" "$asan/meson-logs"
  rm -f "$logs/testlog-ibsim.json" "$asan/meson-logs/testlog.json" \
    "$asan/meson-logs/testlog-ibsim.json"
  meson test -C build --no-rebuild --print-errorlogs --num-processes 2 --suite ibsim \
    --logbase testlog-ibsim >"$logs/ibsim-console.txt" 2>&1 &
  ibsim_pid=$!
  asan_built=0
  if nice -n 10 ninja -C "$asan" >"$asan/meson-logs/build-console.txt" 2>&1; then
    asan_built=1
    meson test -C "$asan" --no-rebuild --print-errorlogs --num-processes 2 --no-suite ibsim \
      || status=$?
  else
    status=1
    tail -50 "$asan/meson-logs/build-console.txt" >&2
    echo "test.sh: the sanitizer build failed" >&2
  fi
  wait "$ibsim_pid" || status=$?
  cat "$logs/ibsim-console.txt"
  if [ "$asan_built" = 1 ]; then
    echo "--- the ibsim suite against the sanitized daemon ($asan):"
    meson test -C "$asan" --no-rebuild --print-errorlogs --num-processes 2 --suite ibsim \
      --logbase testlog-ibsim || status=$?
  fi
  results="$logs/testlog-ibsim.json $asan/meson-logs/testlog.json"
  results="$results $asan/meson-logs/testlog-ibsim.json"
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
