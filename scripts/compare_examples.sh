#!/usr/bin/env bash
# Runs every example in inputs/ with two dgatd executables and compares their results bit for bit
# (scripts/compare_outputs.py): a change that should not alter behaviour must pass it.
#
#   scripts/compare_examples.sh BEFORE_DGATD AFTER_DGATD WORK_DIR [--steps N]
#
# --steps N cuts every example to N steps (its [time] t_end replaced by steps = N): the whole set in
# about three minutes on 2 cores instead of an hour, enough to see a change in the last bit, which
# shows from the first steps on (dt_max, the operators, the sources).
#
# Generated meshes are made reproducible (the same tets on every run), so both executables solve
# the same problem, and the runs take one thread: the matched layers sum their auxiliaries' forces
# with atomic adds, whose order (and so the last bits of a run with layers) changes from run to run
# with more threads. Results go to WORK_DIR/before and WORK_DIR/after; exit status 1 on a difference.
set -euo pipefail
steps=""
if [ "$#" -eq 5 ] && [ "$4" = --steps ] && [[ "$5" =~ ^[1-9][0-9]*$ ]]; then
  steps="$5"
elif [ "$#" -ne 3 ]; then
  echo "usage: scripts/compare_examples.sh BEFORE_DGATD AFTER_DGATD WORK_DIR [--steps N]" >&2
  exit 2
fi
before="$(realpath "$1")"
after="$(realpath "$2")"
work="$3"
source_dir="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$work/before" "$work/after" "$work/configs"
# The geometry scripts the examples mesh ([mesh] file = "x.geo", read beside the config).
cp "$source_dir"/inputs/*.geo "$work/configs/"

for config in "$source_dir"/inputs/*.toml; do
  name="$(basename "$config" .toml)"
  # A generated mesh without an explicit `reproducible` key gets `reproducible = true` in its [mesh]
  # table (a .geo script sets its own mesher).
  if grep -q '^reproducible' "$config" || ! grep -q '^generate' "$config"; then
    cp "$config" "$work/configs/$name.toml"
  else
    sed 's/^\[mesh\]$/[mesh]\nreproducible = true/' "$config" >"$work/configs/$name.toml"
  fi
  if [ -n "$steps" ]; then sed -i "s/^t_end = .*/steps = $steps/" "$work/configs/$name.toml"; fi
  for side in before after; do
    if [ "$side" = before ]; then dgatd="$before"; else dgatd="$after"; fi
    echo "== $name ($side)"
    (cd "$work/$side" && OMP_NUM_THREADS=1 "$dgatd" run "$work/configs/$name.toml" -o "$work/$side/$name.h5" >"$name.log" 2>&1) || {
      echo "$name failed with $dgatd: see $work/$side/$name.log" >&2
      exit 1
    }
  done
done
python3 "$source_dir/scripts/compare_outputs.py" "$work/before" "$work/after"
