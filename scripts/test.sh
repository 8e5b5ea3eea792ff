#!/bin/sh
# Runs every test: unit tests (fake transport, injected clock) and integration
# tests on ibsim against ibsm and Debian's opensm. Installs what it needs first.
# Ends with "N passed, N failed" and exits non-zero if anything failed.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
"$top/scripts/build.sh"
cd "$top"
export IBSM_REQUIRE=1
status=0
meson test -C build --print-errorlogs --num-processes 2 "$@" || status=$?
/usr/bin/python3 - build/meson-logs/testlog.json <<'PY'
import json, sys
passed = failed = skipped = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    res = r.get("result")
    if res in ("OK", "EXPECTEDFAIL"): passed += 1
    elif res == "SKIP": skipped += 1
    else: failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
exit $status
