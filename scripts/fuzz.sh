#!/bin/sh
# Long fuzzing runs: builds the libFuzzer targets with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer in their own build directory (every library is
# compiled with coverage instrumentation, so libFuzzer sees into the decoders),
# then runs each target for a while on its seed corpus. New interesting inputs go
# to a work corpus outside the repository; crashes, leaks, hangs and broken
# invariants are saved as files to replay. See docs/testing.md, "Fuzzing".
#
#   scripts/fuzz.sh [-t SECONDS] [-o DIR] [-b BUILD_DIR] [-l] [TARGET...]
#     -t  seconds per target (default 3600)
#     -o  output: DIR/corpus/<target>/ (grown corpus), DIR/crashes/<target>/,
#         DIR/logs/<target>.log (default /var/tmp/ibsm-fuzz)
#     -b  clang build directory (default build-fuzz; created if missing)
#     -l  list the targets and exit
#   TARGET: any of the list (default: all), e.g. scripts/fuzz.sh -t 600 toml sa_db
#
# Exits non-zero if any target found something. Replay a saved input with
#   <build>/tests/fuzz/<target>_fuzzer <crash file>
# or, with any compiler, <build>/tests/fuzz/<target>_fuzz_replay <crash file>.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
seconds=3600
out=/var/tmp/ibsm-fuzz
build=build-fuzz
list=0
while getopts t:o:b:lh opt; do
  case $opt in
    t) seconds=$OPTARG ;;
    o) out=$OPTARG ;;
    b) build=$OPTARG ;;
    l) list=1 ;;
    *) sed -n '2,20p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))

# target | ninja target | seed directories | extra libFuzzer flags
targets() {
  cat <<EOF
smp_attributes|tests/fuzz/smp_attributes_fuzzer|tests/fuzz/corpus/smp_attributes|-max_len=512
mad_dispatch|tests/fuzz/mad_dispatch_fuzzer|tests/fuzz/corpus/mad_dispatch|-max_len=1024
opensm_conf|tests/fuzz/opensm_conf_fuzzer|tests/fuzz/corpus/opensm_conf|-max_len=32768
toml|tests/fuzz/toml_fuzzer|tests/fuzz/corpus/toml|-max_len=32768
command_line|tests/fuzz/command_line_fuzzer|tests/fuzz/corpus/command_line|-max_len=1024
guid2lid|tests/fuzz/guid2lid_fuzzer|tests/fuzz/corpus/guid2lid|-max_len=8192
guid_files|tests/fuzz/guid_files_fuzzer|tests/fuzz/corpus/guid_files|-max_len=8192
sa_db|tests/fuzz/sa_db_fuzzer|tests/fuzz/corpus/sa_db|-max_len=16384
lft_dump|tests/fuzz/lft_dump_fuzzer|tests/fuzz/corpus/lft_dump|-max_len=16384
lid_matrix|tests/fuzz/lid_matrix_fuzzer|tests/fuzz/corpus/lid_matrix|-max_len=16384
torus_conf|tests/fuzz/torus_conf_fuzzer|tests/fuzz/corpus/torus_conf|-max_len=8192
agent_inputs|tests/fuzz/agent_inputs_fuzzer|tests/fuzz/corpus/agent_inputs|-max_len=8192
partitions_conf|tests/fuzz/partitions_conf_fuzzer|tests/unit/partitions/fuzz_corpus tests/unit/partitions/data|-max_len=8192
sa|tests/unit/sa/sa_fuzz|tests/unit/sa/fuzz_corpus|-max_len=2048
EOF
}

if [ "$list" = 1 ]; then
  targets | cut -d'|' -f1
  exit 0
fi
wanted=${*:-$(targets | cut -d'|' -f1)}
for w in $wanted; do
  targets | cut -d'|' -f1 | grep -qx "$w" || { echo "fuzz.sh: unknown target $w (-l lists them)" >&2; exit 2; }
done

cd "$top"
if [ ! -f "$build/build.ninja" ]; then
  # -fsanitize=fuzzer-no-link instruments every library for coverage; the fuzzer
  # binaries add -fsanitize=fuzzer (tests/fuzz/meson.build). UBSan must abort
  # (not print and go on) so libFuzzer keeps the input.
  CXX=clang++ CC=clang meson setup "$build" \
    -Dbuildtype=debugoptimized \
    -Db_sanitize=address,undefined -Db_lundef=false \
    -Dcpp_args='-fsanitize=fuzzer-no-link -fno-sanitize-recover=undefined'
fi
ninja_targets=
for w in $wanted; do
  ninja_targets="$ninja_targets $(targets | grep "^$w|" | cut -d'|' -f2)"
done
# shellcheck disable=SC2086
ninja -C "$build" -j2 $ninja_targets

found=0
for w in $wanted; do
  line=$(targets | grep "^$w|")
  binary="$build/$(echo "$line" | cut -d'|' -f2)"
  seeds=$(echo "$line" | cut -d'|' -f3)
  flags=$(echo "$line" | cut -d'|' -f4)
  mkdir -p "$out/corpus/$w" "$out/crashes/$w" "$out/logs"
  echo "fuzz.sh: $w for ${seconds}s (corpus $out/corpus/$w, crashes $out/crashes/$w)"
  status=0
  # shellcheck disable=SC2086
  "$binary" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="$out/crashes/$w/" $flags "$out/corpus/$w" $seeds \
    >"$out/logs/$w.log" 2>&1 || status=$?
  crashes=$(find "$out/crashes/$w" -type f | wc -l)
  grep -E 'stat::(number_of_executed_units|new_units_added)' "$out/logs/$w.log" | sed "s/^/  $w: /" || true
  if [ "$status" != 0 ] || [ "$crashes" != 0 ]; then
    echo "fuzz.sh: $w FOUND SOMETHING (exit $status, $crashes files in $out/crashes/$w; log $out/logs/$w.log)"
    found=1
  fi
done
exit $found
