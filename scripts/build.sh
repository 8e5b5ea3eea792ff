#!/bin/sh
# Configures (once) and builds ibsm in ./build. Warnings are errors here, as in CI.
# Optimised without debug info: the quick start and the test run need no symbols,
# and leaving out -g saves a good part of the build time on a 2-core machine.
#   scripts/build.sh            everything (programs, tests, benchmarks)
#   scripts/build.sh TARGET...  only those ninja targets, e.g. sm/ibsm (the demo)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
if [ ! -f build/build.ninja ]; then
  meson setup build --werror -Ddebug=false >/dev/null
fi
ninja -C build "$@" >/dev/null
