#!/bin/sh
# Configures (once) and builds ibsm in ./build. Warnings are errors here, as in CI.
# Optimised without debug info: the quick start and the test run need no symbols,
# and leaving out -g saves a good part of the build time on a 2-core machine.
# A unity build (meson compiles each target's sources as units of 8 files) halves the
# compile CPU: the headers are parsed and the inline code generated once per unit, not
# once per file. Incremental work is quicker in a tree of your own without it
# (`meson setup build-dev --werror`), which also catches a file that lacks an include
# its unit's earlier files happen to provide (docs/testing.md, "Builds").
# Without the fuzz replays: scripts/test.sh runs them on its sanitizer build.
#   scripts/build.sh            everything (programs, tests, benchmarks)
#   scripts/build.sh TARGET...  only those ninja targets, e.g. daemon/ibsm (the demo)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
if [ ! -f build/build.ninja ]; then
  meson setup build --werror -Ddebug=false -Dunity=on -Dunity_size=8 -Dfuzz_replays=false \
    >/dev/null
fi
ninja -C build "$@" >/dev/null
