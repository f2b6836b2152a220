#!/bin/sh
# The cost of MPI against threads on the same cores (issue 21, acceptance 2; issue 51, acceptance 5):
# one run as 1 rank x 2 threads, as 2 ranks x 1 thread with the halo exchange overlapped with Faraday
# (the default), and as 2 ranks x 1 thread waiting for it at the end of each step, alternated in rounds
# on this machine. Prints each run's steps/s (from dgatd run's own report), each round's ratios to
# the threaded run, their medians, and the last 2-rank runs' halo figures.
#   perf/ranks/ranks_vs_threads.sh MESH.msh|CONFIG.toml [ROUNDS=5] [STEPS=200] [DGATD=build/openmp/dgatd]
# A mesh is run as a PEC domain (its boundary all PEC) rung by a dipole at the mean of its nodes; a
# configuration as it is (its terms: far fields, ports, layers), cut to STEPS steps without snapshots
# or checkpoints.
set -eu
input=$(realpath "$1")
rounds=${2:-5}
steps=${3:-200}
dgatd=$(realpath "${4:-build/openmp/dgatd}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
case "$input" in
*.toml)
  for overlap in true false; do
    python3 - "$input" "$work" "$steps" "$overlap" >"$work/run_$overlap.toml" <<'PY'
import os, re, sys
config, work, steps, overlap = sys.argv[1:]
table, lines, solver = "", [], False
for line in open(config).read().splitlines():
    header = re.match(r"^\s*\[\[?\s*([A-Za-z_]+)", line)
    if header:
        table = header.group(1)
        lines.append(line)
        if table == "solver":
            solver = True
            lines.append("overlap_halo = " + overlap)
        elif table == "output":
            lines += ['file = "%s/out.h5"' % work, "progress = false"]
        continue
    key = re.match(r"^\s*([A-Za-z_]+)\s*=\s*(.*)$", line)
    name = key.group(1) if key else ""
    if table == "time" and name in ("t_end", "steps"):
        line = "steps = " + steps
    elif table == "mesh" and name in ("file", "parts"):
        path = re.match(r'^"([^"]*)"', key.group(2)).group(1)
        line = '%s = "%s"' % (name, os.path.join(os.path.dirname(config), path))
    elif table == "output" and name in ("file", "progress", "snapshot_every", "checkpoint_every"):
        continue
    elif table == "solver" and name == "overlap_halo":
        continue
    lines.append(line)
if not solver:
    lines += ["[solver]", "overlap_halo = " + overlap]
print("\n".join(lines))
PY
  done
  ;;
*)
  mesh=$input
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
  ;;
esac
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
