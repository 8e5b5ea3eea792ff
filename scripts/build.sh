#!/bin/sh
# Configures (once) and builds ibsm in ./build. Warnings are errors here, as in CI.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
if [ ! -f build/build.ninja ]; then
  meson setup build --werror >/dev/null
fi
ninja -C build >/dev/null
