#!/bin/sh
# The cost of MPI against threads on the same cores (issue 21, acceptance 2): one run on a mesh file
# as 2 ranks x 1 thread and as 1 rank x 2 threads, alternated in pairs on this machine, printing
# each run's steps/s (from dgatd run's own report), each pair's ratio and the median of the ratios,
# with the halo exchange's values per step and its share of the stepping on the 2-rank runs.
#   perf/ranks/ranks_vs_threads.sh MESH.msh [PAIRS=5] [STEPS=200] [DGATD=build/openmp/dgatd]
# The mesh is a PEC domain (its boundary all PEC) rung by a dipole near its centre of mass.
set -eu
mesh=$(realpath "$1")
pairs=${2:-5}
steps=${3:-200}
dgatd=$(realpath "${4:-build/openmp/dgatd}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
centre=$(awk '/^\$Nodes/{n=1; next} n==1{n=2; next} /^\$EndNodes/{exit}
  n==2 && NF==3 {x+=$1; y+=$2; z+=$3; k++} END {printf "%.6g, %.6g, %.6g", x/k, y/k, z/k}' "$mesh")
cat >"$work/run.toml" <<TOML
[mesh]
file = "$mesh"
[boundary]
pec = "*"
[[source]]
kind = "dipole"
position = [$centre]
direction = [0, 0, 1]
amplitude = 1.0
waveform = "gaussian"
t0 = 3e-9
sigma = 0.5e-9
[time]
steps = $steps
[output]
file = "$work/out.h5"
energy_every = 1000000
progress = false
TOML
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_PROC_BIND=false
rate() { sed -n 's/.*(\([0-9]*\) steps, \([0-9.]*\) steps\/s.*/\2/p' "$1"; }
ratios=""
i=1
while [ "$i" -le "$pairs" ]; do
  OMP_NUM_THREADS=2 "$dgatd" run "$work/run.toml" >"$work/threads.log" 2>&1
  OMP_NUM_THREADS=1 mpirun -n 2 --bind-to none "$dgatd" run "$work/run.toml" >"$work/ranks.log" 2>&1
  t=$(rate "$work/threads.log")
  r=$(rate "$work/ranks.log")
  ratio=$(echo "$r $t" | awk '{printf "%.3f", $1 / $2}')
  echo "pair $i: 1 rank x 2 threads $t steps/s, 2 ranks x 1 thread $r steps/s, ratio $ratio"
  ratios="$ratios $ratio"
  i=$((i + 1))
done
grep "ranks:" "$work/ranks.log" | sed 's/^ */last 2-rank run: /'
grep "halo exchange:" "$work/ranks.log" | sed 's/^ */last 2-rank run: /'
echo "$ratios" | tr ' ' '\n' | grep . | sort -n | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2;
  printf "median ratio (2 ranks x 1 thread over 1 rank x 2 threads) of %d pairs: %.3f (%.3f-%.3f)\n", NR, m, v[1], v[NR]}'
