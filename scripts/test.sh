#!/bin/sh
# Runs every test: unit tests (fake transport, injected clock) on the plain build, and
# integration tests on ibsim against ibsm and Debian's opensm plus the fuzz replays on
# a sanitizer build (AddressSanitizer). Installs what it needs first.
# Ends with "N passed, N failed" and exits non-zero if anything failed.
# Arguments go to `meson test` (e.g. --suite unit); then it builds first and runs
# only what they select.
# `scripts/test.sh --packages` is a separate, slower run (docs/packaging.md): it builds the
# Debian packages and the RPM into ./dist (scripts/package.sh), runs lintian and rpmlint
# on them and the install test in a Debian 12 root (tests/packages/). Needs root.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = "--packages" ]; then
  t0=$(date +%s)
  status=0
  "$top/scripts/package.sh" || exit 1
  echo "test.sh: packages built at $(($(date +%s) - t0)) s" >&2
  "$top/tests/packages/lint.sh" "$top/dist" || status=1
  echo "test.sh: lint done at $(($(date +%s) - t0)) s" >&2
  "$top/tests/packages/install_test.sh" "$top/dist" || status=1
  echo "test.sh: install test done at $(($(date +%s) - t0)) s" >&2
  exit $status
fi
"$top/scripts/install-deps.sh" --tests
cd "$top"
export IBSM_REQUIRE=1
logs=build/meson-logs
status=0
if [ "$#" -gt 0 ]; then
  "$top/scripts/build.sh"
  meson test -C build --print-errorlogs --num-processes 2 "$@" || status=$?
  results="$logs/testlog.json"
else
  # Two builds: the plain one (./build, -O2, what users run) for the unit tests, and a
  # sanitizer build (./build-asan: AddressSanitizer, -O1; docs/testing.md "Sanitizers":
  # UBSan doubled its compile time) of what meets untrusted input: the daemon, the agent
  # and ibsm-ctl, which the whole ibsim suite runs, and the fuzz replays of every
  # decoder with the unit tests of the MAD layer. The ibsim suite runs once, on the
  # sanitized programs: the plain ones are the same code, and a second pass took 8 of
  # the run's 25 minutes. Ordered for a 2-core machine: the suite mostly waits (on SM
  # timers and the simulator), so it starts as soon as its programs exist and the
  # builds and unit tests run beside it, niced, so the waiting tests get the CPU they
  # want. (The whole tree sanitized is `meson test -C build-asan`.)
  asan=build-asan
  # On the sanitizer build, besides the ibsim suite: the suite 'fuzz' (the replays of
  # every decoder; not built by default, so `meson test` builds them) and the unit tests
  # of the MAD layer.
  asan_units="mad_unit"
  # Unity, as scripts/build.sh builds ./build: half the compile CPU.
  if [ ! -f "$asan/build.ninja" ]; then
    meson setup "$asan" --werror -Ddebug=false -Doptimization=1 \
      -Db_sanitize=address -Db_lundef=false -Dunity=on -Dunity_size=8 >/dev/null
  fi
  mkdir -p "$logs" "$asan/meson-logs"
  rm -f "$logs/testlog.json" "$asan/meson-logs/testlog.json" \
    "$asan/meson-logs/testlog-fuzz.json" "$asan/meson-logs/testlog-ibsim.json"
  t0=$(date +%s)
  phase() { echo "test.sh: $1 at $(($(date +%s) - t0)) s" >&2; }
  results="$logs/testlog.json $asan/meson-logs/testlog-fuzz.json $asan/meson-logs/testlog.json
    $asan/meson-logs/testlog-ibsim.json"
  ibsim_pid=
  # Ended early (Ctrl-C, SIGTERM from a CI runner's timeout): the ibsim suite in the
  # background is told too, so meson stops its pytest and the harness its simulators.
  trap 'if [ -n "$ibsim_pid" ]; then kill "$ibsim_pid" 2>/dev/null || true; fi; exit 130' INT
  trap 'if [ -n "$ibsim_pid" ]; then kill "$ibsim_pid" 2>/dev/null || true; fi; exit 143' TERM
  if ninja -C "$asan" --quiet daemon/ibsm agent/ibsm-agent ctl/ibsm-ctl \
    >"$asan/meson-logs/build-console.txt" 2>&1; then
    phase "the sanitized programs built; the ibsim suite starts"
    meson test -C "$asan" --no-rebuild --print-errorlogs --num-processes 2 --suite ibsim \
      --logbase testlog-ibsim >"$asan/meson-logs/ibsim-console.txt" 2>&1 &
    ibsim_pid=$!
  else
    status=1
    tail -50 "$asan/meson-logs/build-console.txt" >&2
    echo "test.sh: the sanitizer build of the programs failed; no ibsim suite" >&2
  fi
  if nice -n 10 "$top/scripts/build.sh"; then
    phase "the plain build done"
    nice -n 10 meson test -C build --no-rebuild --print-errorlogs --num-processes 2 \
      --no-suite ibsim --no-suite fuzz || status=$?
    phase "the unit tests done"
  else
    status=$?
    echo "test.sh: the build failed" >&2
  fi
  # meson test builds what the tests it runs need (its output goes to the console).
  if nice -n 10 meson test -C "$asan" --print-errorlogs --num-processes 1 --suite fuzz \
    --logbase testlog-fuzz; then
    phase "the fuzz replays done"
  else
    status=1
  fi
  # shellcheck disable=SC2086
  nice -n 10 meson test -C "$asan" --print-errorlogs --num-processes 1 $asan_units || status=1
  if [ -n "$ibsim_pid" ]; then
    wait "$ibsim_pid" || status=$?
    phase "the ibsim suite done"
    echo "--- the ibsim suite on the sanitizer build ($asan)"
    cat "$asan/meson-logs/ibsim-console.txt"
  fi
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
