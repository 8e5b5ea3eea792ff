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
  # The plain build (./build, what users run: every test) and a sanitizer build
  # (./build-asan: AddressSanitizer + UndefinedBehaviorSanitizer, -O1; docs/testing.md
  # "Sanitizers") of what meets untrusted input: the daemon and the agent, run through
  # the whole ibsim suite, and the fuzz replays of every decoder with the unit tests of
  # the MAD layer. (The whole tree sanitized is `meson test -C build-asan`: about 20
  # minutes more on 2 cores, too long for every change.) Ordered for a 2-core machine:
  # the ibsim suite mostly waits (on SM timers and the simulator), so each run of it
  # goes beside a build, which runs niced so the waiting tests get the CPU they want.
  asan=build-asan
  asan_tests="mad_unit sa_fuzz_replay partitions_fuzz_replay smp_attributes_fuzz_replay
    mad_dispatch_fuzz_replay opensm_conf_fuzz_replay toml_fuzz_replay command_line_fuzz_replay
    ctl_command_fuzz_replay guid2lid_fuzz_replay guid_files_fuzz_replay sa_db_fuzz_replay
    perfmgr_counters_fuzz_replay prefix_routes_fuzz_replay cc_values_fuzz_replay
    node_name_map_fuzz_replay per_module_logging_fuzz_replay lft_dump_fuzz_replay
    lid_matrix_fuzz_replay torus_conf_fuzz_replay agent_inputs_fuzz_replay
    qos_policy_fuzz_replay partitions_conf_fuzz_replay"
  asan_targets="sm/ibsm agent/ibsm-agent ctl/ibsm-ctl tests/unit/mad/mad_unit
    tests/unit/sa/sa_fuzz_replay tests/unit/partitions/partitions_fuzz_replay"
  for t in $asan_tests; do
    case "$t" in
      sa_fuzz_replay | partitions_fuzz_replay | mad_unit) ;;
      *) asan_targets="$asan_targets tests/fuzz/$t" ;;
    esac
  done
  if [ ! -f build/build.ninja ]; then
    meson setup build --werror -Ddebug=false >/dev/null  # as scripts/build.sh does
  fi
  if [ ! -f "$asan/build.ninja" ]; then
    meson setup "$asan" --werror -Ddebug=false -Doptimization=1 \
      -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
  fi
  ninja -C build --quiet sm/ibsm agent/ibsm-agent ctl/ibsm-ctl
  mkdir -p "$logs" "$asan/meson-logs"
  rm -f "$logs/testlog.json" "$logs/testlog-ibsim.json" \
    "$asan/meson-logs/testlog.json" "$asan/meson-logs/testlog-ibsim.json"
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
  asan_built=0
  # shellcheck disable=SC2086
  if nice -n 10 ninja -C "$asan" $asan_targets >"$asan/meson-logs/build-console.txt" 2>&1; then
    asan_built=1
  else
    status=1
    tail -50 "$asan/meson-logs/build-console.txt" >&2
    echo "test.sh: the sanitizer build failed" >&2
  fi
  wait "$ibsim_pid" || status=$?
  cat "$logs/ibsim-console.txt"
  results="$logs/testlog.json $logs/testlog-ibsim.json"
  if [ "$asan_built" = 1 ]; then
    echo "--- sanitizer build ($asan): the ibsim suite and the fuzz replays"
    # The pytest suite only: the suite's other tests (agent, systemd) need programs the
    # sanitizer build does not make.
    meson test -C "$asan" --no-rebuild --print-errorlogs --num-processes 2 ibsim \
      --logbase testlog-ibsim >"$asan/meson-logs/ibsim-console.txt" 2>&1 &
    ibsim_pid=$!
    # shellcheck disable=SC2086
    nice -n 10 meson test -C "$asan" --no-rebuild --print-errorlogs --num-processes 1 \
      $asan_tests || status=$?
    wait "$ibsim_pid" || status=$?
    cat "$asan/meson-logs/ibsim-console.txt"
    results="$results $asan/meson-logs/testlog.json $asan/meson-logs/testlog-ibsim.json"
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
