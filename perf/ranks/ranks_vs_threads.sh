#!/bin/sh
# The cost of MPI against threads on the same cores (issue 21, acceptance 2): one run on a mesh file
# as 1 rank x 2 threads, as 2 ranks x 1 thread with the halo exchange overlapped with Faraday (the
# default), and as 2 ranks x 1 thread waiting for it at the end of each step, alternated in rounds
# on this machine. Prints each run's steps/s (from dgatd run's own report), each round's ratios to
# the threaded run, their medians, and the last 2-rank runs' halo figures.
#   perf/ranks/ranks_vs_threads.sh MESH.msh [ROUNDS=5] [STEPS=200] [DGATD=build/openmp/dgatd]
# The mesh is a PEC domain (its boundary all PEC) rung by a dipole at the mean of its nodes.
set -eu
mesh=$(realpath "$1")
rounds=${2:-5}
steps=${3:-200}
dgatd=$(realpath "${4:-build/openmp/dgatd}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
centre=$(awk '/^\$Nodes/{n=1; next} n==1{n=2; next} /^\$EndNodes/{exit}
  n==2 && NF==3 {x+=$1; y+=$2; z+=$3; k++} END {printf "%.6g, %.6g, %.6g", x/k, y/k, z/k}' "$mesh")
for overlap in true false; do
  cat >"$work/run_$overlap.toml" <<TOML
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
[solver]
overlap_halo = $overlap
TOML
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_PROC_BIND=false
rate() { sed -n 's/.*(\([0-9]*\) steps, \([0-9.]*\) steps\/s.*/\2/p' "$1"; }
median() {
  tr ' ' '\n' | grep . | sort -n | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2;
    printf "%.3f (%.3f-%.3f)", m, v[1], v[NR]}'
}
overlapped=""
waiting=""
i=1
while [ "$i" -le "$rounds" ]; do
  OMP_NUM_THREADS=2 "$dgatd" run "$work/run_true.toml" >"$work/threads.log" 2>&1
  OMP_NUM_THREADS=1 mpirun -n 2 --bind-to none "$dgatd" run "$work/run_true.toml" >"$work/overlap.log" 2>&1
  OMP_NUM_THREADS=1 mpirun -n 2 --bind-to none "$dgatd" run "$work/run_false.toml" >"$work/wait.log" 2>&1
  t=$(rate "$work/threads.log")
  o=$(rate "$work/overlap.log")
  w=$(rate "$work/wait.log")
  ro=$(echo "$o $t" | awk '{printf "%.3f", $1 / $2}')
  rw=$(echo "$w $t" | awk '{printf "%.3f", $1 / $2}')
  echo "round $i: 1 rank x 2 threads $t steps/s; 2 ranks x 1 thread $o steps/s overlapped ($ro), $w waiting ($rw)"
  overlapped="$overlapped $ro"
  waiting="$waiting $rw"
  i=$((i + 1))
done
grep "ranks:" "$work/overlap.log" | sed 's/^ */last 2-rank run: /'
grep "halo exchange:" "$work/overlap.log" | sed 's/^ */last overlapped run: /'
grep "halo exchange:" "$work/wait.log" | sed 's/^ */last waiting run: /'
echo "median ratio to 1 rank x 2 threads over $rounds rounds: overlapped $(echo "$overlapped" | median), waiting $(echo "$waiting" | median)"
