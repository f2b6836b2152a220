#!/bin/sh
# What compiling for this machine's instruction set changes (issue 20, item 4): the openmp preset's
# dgatd (-march=native) against the openmp-portable preset's (any x86-64), `dgatd bench` alternated
# in rounds on the same problem. Each bench times its kernels interleaved with its own STREAM triad;
# a round's ratio is the native run's fraction of its triad over the portable run's, kernel by
# kernel and precision by precision, and the script prints each ratio's median over the rounds.
#   perf/native_vs_portable.sh [ROUNDS=5] [BENCH ARGS...]   (default: --sizes 40 --reps 7)
# Build both first: cmake --build --preset openmp --target dgatd; the same with openmp-portable.
set -eu
rounds=${1:-5}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- --sizes 40 --reps 7
native=build/openmp/dgatd
portable=build/openmp-portable/dgatd
for exe in "$native" "$portable"; do
  [ -x "$exe" ] || { echo "native_vs_portable.sh: no $exe; build the openmp and openmp-portable presets' dgatd" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMP_PROC_BIND=spread OMP_PLACES=threads
# The rows of dgatd bench's table: kernel, layout, median ms and fraction of triad, one line each.
rows() { awk '$1 == "OpenMP" && $4 !~ /^stream/ { print $4 "/" $5, $6, $11 }' "$1" | sort; }
i=1
while [ "$i" -le "$rounds" ]; do
  for build in native portable; do
    eval exe=\$$build
    "$exe" bench --layouts default "$@" >"$work/$build.txt"
    rows "$work/$build.txt" >"$work/$build.$i"
  done
  join "$work/native.$i" "$work/portable.$i" |
    awk -v round="$i" '{ printf "round %s %s: native %.4f ms (%.2f of triad), portable %.4f ms (%.2f); ratio %.3f\n",
      round, $1, $2, $3, $4, $5, $3 / $5 }' | tee -a "$work/ratios"
  i=$((i + 1))
done
echo "median ratio of the fractions of triad, native over portable, over $rounds rounds (range):"
awk '{ print $3, $NF }' "$work/ratios" | sort -k1,1 -k2,2n | awk '
  { key = $1; v[key, ++n[key]] = $2 }
  END { for (k in n) { c = n[k]; m = c % 2 ? v[k, (c + 1) / 2] : (v[k, c / 2] + v[k, c / 2 + 1]) / 2;
        printf "  %-48s %.3f (%.3f-%.3f)\n", k, m, v[k, 1], v[k, c] } }' | sort
