#!/bin/sh
# Runs clang-tidy with the repo's .clang-tidy over the project's sources, using the build's compile database.
set -eu
src="$1"; build="$2"
cd "$src"
git ls-files '*.cpp' | grep -v '^tests/' | xargs -P "$(nproc)" -n 8 clang-tidy -p "$build" --quiet
