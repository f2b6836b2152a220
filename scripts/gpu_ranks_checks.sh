#!/usr/bin/env bash
# Runs over ranks on a lent GPU machine (issue 21; about 4 minutes on an H200): two ranks sharing its
# one GPU through the bundle's Open MPI (scripts/pack_cuda_bundle.sh of a cuda build with MPI).
# - test_ranks on 2 ranks on Cuda: each configuration over both ranks against rank 0 alone;
# - the cylinder resonator of inputs/ on 1 rank and on 2 ranks with the same dt, compared dataset by
#   dataset (perf/ranks/compare_outputs.py), and its spectrum;
# - the cylinder of h = 0.02 (Gmsh's HXT there: about 0.8 M tets) for 2000 steps: 1 rank, 2 ranks
#   overlapped, 2 ranks waiting, in two rounds, then one more round under CUDA's Multi-Process
#   Service (MPS, where the machine has it), with each run's report (steps/s, halo values and time);
#   quick runs the MPS round alone (a plain round where there is no MPS), about 2 minutes less.
# - on a machine with several GPUs, one rank per GPU (each rank takes its node-local rank's GPU): the
#   h = 0.02 cylinder and the coarse aircraft of inputs/aircraft/aircraft.toml (a plane wave, its far field
#   and the body's surface currents) on 1 GPU and on 2 and 4 GPUs where there are so many, compared
#   dataset by dataset, with each run's report (steps/s, the halo through the GPU or host buffers).
# Writes the log to OUT_DIR.
#
#   scripts/gpu_ranks_checks.sh BUNDLE.tar.xz OUT_DIR [quick]
set -u
[ $# -eq 2 ] || { [ $# -eq 3 ] && [ "$3" = quick ]; } ||
  { echo "usage: scripts/gpu_ranks_checks.sh BUNDLE.tar.xz OUT_DIR [quick]" >&2; exit 2; }
quick="${3:-}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
bundle="$(realpath "$1")"
out="$(mkdir -p "$2" && realpath "$2")"
exec > >(tee -a "$out/gpu_ranks_checks.log") 2>&1
start=$SECONDS
stamp() { echo "[gpu_ranks_checks] $* at $((SECONDS - start)) s"; }
date -u
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
root="$(mktemp -d)"
xz -dc "$bundle" | tar -C "$root" -xf -
[ -x "$root/bin/mpirun" ] || { echo "gpu_ranks_checks.sh: the bundle has no mpirun (dgatd built without MPI)"; exit 1; }
# Open MPI finds its plugins and help texts at the paths Debian compiled in.
cp -a "$root/mpi/." /
cus="$(find / -xdev \( -path /proc -o -path /sys \) -prune -o -name 'libcusparse.so.12*' -print 2>/dev/null | head -1)"
export DGATD_CUSPARSE12="$cus" LD_LIBRARY_PATH="$root/lib${cus:+:$(dirname "$cus")}" PATH="$root/bin:$PATH"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMP_PROC_BIND=false OMP_NUM_THREADS=4
# test_ranks reads inputs/ from the source tree it was built in.
[ -e /work/main ] || { mkdir -p /work && ln -s "$repo" /work/main; }
bin="$root/bin"
launch="mpirun --bind-to none"
$launch -n 2 true || launch="mpirun --bind-to none --mca btl self,tcp"
echo "launcher: $launch"
stamp unpacked

(cd "$repo" && timeout 240 $launch -n 2 "$bin/test_ranks" --gtest_brief=1)
echo "test_ranks on 2 ranks: exit status $?"
stamp test_ranks

work="$(mktemp -d)"
cd "$work"
dt_of() { python3 -c "import h5py; print(repr(float(h5py.File('$1', 'r').attrs['dt'])))"; }
with_dt() { sed "s/^dt = \"auto\"/dt = $2/" "$1"; }
compare() { python3 "$repo/perf/ranks/compare_outputs.py" "$1" "$2"; }

cp "$repo/inputs/cylinder_resonator.toml" cylinder.toml
timeout 120 "$bin/dgatd" run cylinder.toml -o one.h5
echo "cylinder resonator, 1 rank: exit status $?"
with_dt cylinder.toml "$(dt_of one.h5)" >cylinder_dt.toml
timeout 120 $launch -n 2 "$bin/dgatd" run cylinder_dt.toml -o two.h5
echo "cylinder resonator, 2 ranks: exit status $?"
compare one.h5 two.h5
timeout 60 "$bin/dgatd" spectrum two.h5 --probe off_axis --component z --fmin 80e6 --fmax 330e6
stamp "cylinder resonator"

timeout 150 "$bin/dgatd" mesh cylinder --radius 1 --height 0.5 --h 0.02 -o big.msh | tail -1
stamp mesh
for overlap in true false; do
  cat >"big_$overlap.toml" <<TOML
[mesh]
file = "big.msh"
[boundary]
pec = "*"
[[source]]
kind = "dipole"
position = [0.39, 0.23, 0.21]
direction = [0, 0, 1]
amplitude = 1.0
waveform = "gaussian"
t0 = 3e-9
sigma = 0.5e-9
[time]
steps = 2000
dt = "auto"
[[probe]]
name = "off_axis"
position = [-0.31, 0.52, 0.33]
[output]
file = "big.h5"
energy_every = 100
snapshot_every = 0
[solver]
overlap_halo = $overlap
TOML
done
timeout 150 "$bin/dgatd" run big_true.toml -o big_first.h5
dt="$(dt_of big_first.h5)"
for overlap in true false; do with_dt "big_$overlap.toml" "$dt" >"big_${overlap}_dt.toml"; done
rounds="1 2 mps"
if [ -n "$quick" ]; then
  rounds=1
  command -v nvidia-cuda-mps-control >/dev/null && rounds=mps
fi
for round in $rounds; do
  if [ "$round" = mps ]; then
    command -v nvidia-cuda-mps-control >/dev/null || break
    export CUDA_MPS_PIPE_DIRECTORY="$work/mps" CUDA_MPS_LOG_DIRECTORY="$work/mps_log"
    mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
    nvidia-cuda-mps-control -d && echo "MPS started"
  fi
  timeout 150 "$bin/dgatd" run big_true_dt.toml -o big_one.h5
  echo "h = 0.02 cylinder, 1 rank: exit status $?"
  timeout 150 $launch -n 2 "$bin/dgatd" run big_true_dt.toml -o big_overlap.h5
  echo "h = 0.02 cylinder, 2 ranks overlapped: exit status $?"
  timeout 150 $launch -n 2 "$bin/dgatd" run big_false_dt.toml -o big_waiting.h5
  echo "h = 0.02 cylinder, 2 ranks waiting: exit status $?"
  stamp "h = 0.02 cylinder, round $round"
done
[ -n "${CUDA_MPS_PIPE_DIRECTORY:-}" ] && echo quit | nvidia-cuda-mps-control
compare big_one.h5 big_overlap.h5
compare big_one.h5 big_waiting.h5

gpus="$(nvidia-smi -L | grep -c '^GPU')"
if [ "$gpus" -ge 2 ]; then
  cp "$repo/inputs/aircraft/aircraft_shape.geo" "$repo/inputs/aircraft/aircraft.geo" .
  sed -e 's/^t_end = 14e-9/steps = 600\ndt = "auto"/' -e 's/^snapshot_every = 500.*/snapshot_every = 300/' \
    "$repo/inputs/aircraft/aircraft.toml" >aircraft.toml
  timeout 300 "$bin/dgatd" run aircraft.toml -o aircraft_one.h5
  echo "aircraft, 1 GPU: exit status $?"
  with_dt aircraft.toml "$(dt_of aircraft_one.h5)" >aircraft_dt.toml
  for ranks in 2 4; do
    [ "$gpus" -ge "$ranks" ] || break
    timeout 150 $launch -n "$ranks" "$bin/dgatd" run big_true_dt.toml -o "big_gpus_$ranks.h5"
    echo "h = 0.02 cylinder, $ranks ranks on $ranks GPUs: exit status $?"
    compare big_one.h5 "big_gpus_$ranks.h5"
    timeout 300 $launch -n "$ranks" "$bin/dgatd" run aircraft_dt.toml -o "aircraft_gpus_$ranks.h5"
    echo "aircraft, $ranks ranks on $ranks GPUs: exit status $?"
    compare aircraft_one.h5 "aircraft_gpus_$ranks.h5"
    stamp "$ranks GPUs"
  done
fi
stamp done
