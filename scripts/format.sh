#!/bin/sh
# Formats (fix) or checks (check) every C++ file tracked by git with the repo's .clang-format.
set -eu
cd "$1"
files=$(git ls-files '*.cpp' '*.hpp' 2>/dev/null || true)
[ -n "$files" ] || exit 0
if [ "$2" = fix ]; then
  echo "$files" | xargs clang-format -i
else
  echo "$files" | xargs clang-format --dry-run --Werror
fi
