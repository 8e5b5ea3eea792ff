#!/bin/sh
# Runs clang-tidy with the repo's .clang-tidy over the project's sources, using the build's compile database.
# A unity build's database names only the generated unity files, so then a configured (not
# built) non-unity tree next to it, build-tidy, provides one entry per source file.
set -eu
src="$1"; build="$2"
cd "$src"
if grep -q -- '-unity[0-9]*\.cpp' "$build/compile_commands.json"; then
  [ -f build-tidy/compile_commands.json ] || meson setup build-tidy -Dunity=off >/dev/null
  build=build-tidy
fi
git ls-files '*.cpp' | grep -v '^tests/' | xargs -P "$(nproc)" -n 8 clang-tidy -p "$build" --quiet
