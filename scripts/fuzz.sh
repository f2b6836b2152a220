#!/usr/bin/env bash
# Fuzzes the two readers of user files with libFuzzer under address and undefined-behaviour
# sanitizers, one after the other, SECONDS each:
#   scripts/fuzz.sh SECONDS
#     fuzz_config  the TOML configuration loader (io::parse_config)
#     fuzz_mesh    the .msh reader (mesh::read_mesh: the file check, then Gmsh)
# Builds build/fuzz first (the fuzz preset: clang 14, the targets and the readers' own sources).
# Each target starts from its seeds (tests/fuzz/seeds/, inputs/, tests/fuzz/regressions/) and the
# corpus earlier runs grew in build/fuzz/corpus/<target>/, and prints its executions, exec/s and
# the coverage reached (libFuzzer's cov: edges and ft: features). A finding (a crash, a leak, an
# input that takes over 10 s or 2 GB, an uncaught exception, an error that is not one line naming
# the file, or a file left open) makes the script exit 1 and prints the path of the input, kept
# in build/fuzz/findings/<target>/; once it is fixed, copy it to tests/fuzz/regressions/<target>/,
# whose inputs the unit tests replay.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-}"
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/fuzz.sh SECONDS   (how long to fuzz each of the two readers)" >&2
  exit 2
fi
if ! command -v clang++-14 >/dev/null; then
  echo "fuzz.sh: clang 14 not found; install it with: apt-get install clang-14 libclang-rt-14-dev libomp-14-dev" >&2
  exit 2
fi

# Kokkos (the mesh reader's host loops run on it), Gmsh and toml11.
scripts/setup_dependencies.sh
scripts/configure_preset.sh fuzz >/dev/null
cmake --build --preset fuzz -j "${JOBS:-$(nproc)}"

build=build/fuzz
# The mesh target writes each input to a file in TMPDIR: a directory of our own, removed at the
# end even when an input crashed the target before it could remove its file.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

status=0
run_target() {
  local target="$1"
  shift
  local corpus="$build/corpus/$target" findings="$build/findings/$target" log="$build/$target.log"
  mkdir -p "$corpus" "$findings"
  echo "fuzz.sh: $target for $seconds s (log: $log)"
  local rc=0
  # One thread: the loops of the mesh reader are tiny, and a fuzzer should leave the other cores be.
  TMPDIR="$scratch" OMP_NUM_THREADS=1 OMP_PROC_BIND=false OMP_WAIT_POLICY=passive \
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$build/tests/fuzz/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -detect_leaks=1 \
    -print_final_stats=1 -dict="tests/fuzz/$target.dict" -artifact_prefix="$findings/" \
    "$corpus" "$@" >"$log" 2>&1 || rc=$?
  # libFuzzer's last status line carries the coverage; its final statistics the rest.
  local last executions rate
  last="$(grep -aE '^#[0-9]+[[:space:]]' "$log" | tail -n 1 || true)"
  executions="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")"
  rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")"
  echo "$target: ${executions:-?} executions, ${rate:-?} exec/s," \
    "coverage cov: $(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last") ft: $(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")," \
    "corpus $(sed -n 's/.* corp: \([^ ]*\).*/\1/p' <<<"$last") (inputs/bytes)"
  if [ "$rc" -ne 0 ]; then
    grep -aE '^SUMMARY|ERROR: libFuzzer|dgatd::fuzz:' "$log" | head -n 3 || true
    echo "fuzz.sh: $target FOUND A PROBLEM (exit $rc); the input: $(sed -n 's/.*Test unit written to //p' "$log" | tail -n 1)"
    status=1
  fi
}

run_target fuzz_config tests/fuzz/seeds/config inputs tests/fuzz/regressions/config
run_target fuzz_mesh tests/fuzz/seeds/mesh tests/fuzz/regressions/mesh
exit "$status"
