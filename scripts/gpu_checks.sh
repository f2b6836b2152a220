#!/usr/bin/env bash
# What a GPU machine is lent for, in one run (about 3 minutes on an H200 before the benches took
# three precisions; allow 8, or 5 with quick): the Cuda test executables, dgatd bench (double, mixed
# and single precision) on Kuhn boxes and on Gmsh cylinders of 0.4 M and 3.1 M tets in the file's
# order and the Hilbert ordering, on the matched-shell configuration perf/configs/pml_box_4m.toml
# with and without its complex frequency shift (double and mixed: single has no layers), and the
# cylinder resonator example with its peaks, in double and single. Runs from the bundle of
# scripts/pack_cuda_bundle.sh; writes the log and the bench JSON files to OUT_DIR. quick leaves out
# the 3.1 M-tet cylinder and the file's order; tests runs the Cuda test executables alone (about a
# minute and a half), for a lease that checks correctness first; terms runs them and then the benches
# of the terms added since (about 4 minutes): a Drude-Lorentz box against vacuum, the strip dipole's
# local steps against its global step, the graded sphere's local steps with each level's tets (then
# also its blocks) contiguous against the Hilbert ordering and their passes one by one
# (bench_local_steps), and the sphere's far field at 15 frequencies.
#
#   scripts/gpu_checks.sh BUNDLE.tar.xz OUT_DIR [quick|tests|terms]
set -u
[ $# -eq 2 ] || { [ $# -eq 3 ] && { [ "$3" = quick ] || [ "$3" = tests ] || [ "$3" = terms ]; }; } ||
  { echo "usage: scripts/gpu_checks.sh BUNDLE.tar.xz OUT_DIR [quick|tests|terms]" >&2; exit 2; }
quick="${3:-}"
orderings=none,hilbert
[ -n "$quick" ] && orderings=hilbert
repo="$(cd "$(dirname "$0")/.." && pwd)"
bundle="$(realpath "$1")"
out="$(mkdir -p "$2" && realpath "$2")"
exec > >(tee -a "$out/gpu_checks.log") 2>&1
start=$SECONDS
stamp() { echo "[gpu_checks] $* at $((SECONDS - start)) s"; }
date -u
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem,driver_version --format=csv
root="$(mktemp -d)"
xz -dc "$bundle" | tar -C "$root" -xf -
export LD_LIBRARY_PATH="$root/lib"
DGATD_CUSPARSE12="$(find / -xdev \( -path /proc -o -path /sys \) -prune -o -name 'libcusparse.so.12*' -print 2>/dev/null | head -1)"
export DGATD_CUSPARSE12
[ -n "$DGATD_CUSPARSE12" ] && LD_LIBRARY_PATH+=":$(dirname "$DGATD_CUSPARSE12")"
OMP_NUM_THREADS="$(nproc)"
export OMP_PROC_BIND=false OMP_NUM_THREADS
bin="$root/bin"
"$bin/dgatd" --version
for t in "$bin"/test_*_cuda; do
  echo "== $(basename "$t")"
  (cd "$repo" && timeout 120 "$t" --gtest_brief=1)
  echo "exit status $?"
done
stamp tests
[ "$quick" = tests ] && exit 0
work="$(mktemp -d)"
cd "$work" || exit 1
if [ "$quick" = terms ]; then
  timeout 300 "$bin/dgatd" bench --config "$repo/perf/configs/drude_lorentz_box.toml" \
    --config "$repo/perf/configs/vacuum_box.toml" --precision double --reps 10 --json "$out/bench_dispersive.json"
  echo "bench dispersive status $?"
  stamp "bench dispersive"
  cp "$repo"/inputs/strip_dipole.geo "$repo"/inputs/strip_dipole.toml .
  sed -i 's/^\[time\]$/[time]\nlocal_steps = "auto"/' strip_dipole.toml
  timeout 300 "$bin/dgatd" bench --config strip_dipole.toml --precision double --json "$out/bench_local_steps.json"
  echo "bench local steps status $?"
  stamp "bench local steps"
  if [ -x "$bin/bench_local_steps" ]; then
    timeout 60 "$bin/dgatd" mesh sphere --radius 0.1 --tfsf 0.28 --size 0.44 --h 0.02 --h-sphere 0.005 --pml 0.1 \
      -o graded_sphere.msh | tail -1
    for what in tets all; do
      timeout 300 "$bin/bench_local_steps" --mesh graded_sphere.msh --ordering hilbert --contiguous-levels "$what" \
        --passes
      echo "bench contiguous levels ($what) status $?"
    done
    stamp "bench contiguous levels"
  fi
  frequencies="$(seq -s ', ' 500e6 30e6 920e6)"
  sed "s/^frequencies = .*/frequencies = [$frequencies]/" "$repo/inputs/sphere_rcs.toml" >far_field.toml
  timeout 200 "$bin/dgatd" bench --config far_field.toml --reps 5 --json "$out/bench_far_field.json"
  echo "bench far field status $?"
  stamp "done"
  exit 0
fi
mesh_and_bench() { # h, name
  timeout 120 "$bin/dgatd" mesh cylinder --radius 1 --height 0.5 --h "$1" -o "$2.msh" | tail -1
  timeout 200 "$bin/dgatd" bench --mesh "$2.msh" --ordering "$orderings" --layouts default --reps 9 \
    --precision double,mixed,single --json "$out/bench_$2.json"
  echo "bench $2 status $?"
  stamp "bench $2"
}
mesh_and_bench 0.025 cylinder_400k
timeout 200 "$bin/dgatd" bench --sizes 44,64 --layouts default --reps 9 --precision double,mixed,single \
  --json "$out/bench_boxes.json"
echo "bench boxes status $?"
stamp "bench boxes"
[ -z "$quick" ] && mesh_and_bench 0.0125 cylinder_3m
sed 's/^region = "pml"$/region = "pml"\ncfs_frequency = 1e8/' "$repo/perf/configs/pml_box_4m.toml" >pml_box_4m_cfs.toml
for box in "$repo/perf/configs/pml_box_4m.toml" pml_box_4m_cfs.toml; do
  timeout 300 "$bin/dgatd" bench --config "$box" --reps 9 --json "$out/bench_$(basename "$box" .toml).json"
  echo "bench $(basename "$box") status $?"
  stamp "bench $(basename "$box")"
done
for precision in double single; do
  sed "s/^\[mesh\]$/[solver]\nprecision = \"$precision\"\n\n[mesh]/" "$repo/inputs/cylinder_resonator.toml" >resonator.toml
  timeout 120 "$bin/dgatd" run resonator.toml -o "resonator_$precision.h5"
  timeout 60 "$bin/dgatd" spectrum "resonator_$precision.h5" --probe off_axis --component z --fmin 80e6 --fmax 330e6
done
stamp "done"
