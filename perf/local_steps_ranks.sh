#!/bin/sh
# Local time steps over ranks (issue 47): the graded sphere cavity of the tests (22 k tets, four
# levels) to t = 30 ns, stepped four ways in each round: local steps and one global step, each as one
# process on 2 threads and as 2 ranks of one thread. Per round, the stepping time per simulated
# second of each way; printed: the medians over the rounds of the pairs' ratios taken in the same
# round. The machines are shared: read the medians, not one round.
#   perf/local_steps_ranks.sh [ROUNDS=3] [DGATD=build/openmp/dgatd] [MPIEXEC=mpiexec]
set -eu
rounds=${1:-3}
dgatd=${2:-build/openmp/dgatd}
mpiexec=${3:-mpiexec}
[ -x "$dgatd" ] || { echo "local_steps_ranks.sh: no $dgatd; build the openmp preset's dgatd" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for steps in auto off; do
  cat >"$work/$steps.toml" <<EOF
[mesh]
generate = "sphere"
radius = 0.1
tfsf = 0.28
size = 0.44
h = 0.05
h_sphere = 0.0125
pml = 0.1
reproducible = true

[[source]]
kind = "dipole"
position = [0.05, 0.12, 0.09]
direction = [0.5, 0.6, 0.62]
waveform = "modulated_gaussian"
frequency = 0.25e9
sigma = 1.5e-9

[time]
t_end = 30e-9
local_steps = "$steps"

[output]
file = "$steps.h5"
progress = false
EOF
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_PROC_BIND=false
i=1
while [ "$i" -le "$rounds" ]; do
  for steps in auto off; do
    OMP_NUM_THREADS=2 "$dgatd" run "$work/$steps.toml" | grep -E '  (time|dt_max)' | tr '\n' ' ' >>"$work/one_$steps"
    echo >>"$work/one_$steps"
    OMP_NUM_THREADS=1 "$mpiexec" -n 2 "$dgatd" run "$work/$steps.toml" 2>/dev/null | grep -E '  (time|dt_max)' |
      tr '\n' ' ' >>"$work/ranks_$steps"
    echo >>"$work/ranks_$steps"
  done
  i=$((i + 1))
done
python3 - "$work" <<'EOF'
import re, statistics, sys
work = sys.argv[1]
def per_simulated_second(path):
    out = []
    for line in open(path).read().splitlines():
        dt = float(re.search(r"dt = ([\d.e+-]+) s", line).group(1))
        stepping, steps = re.search(r"stepping ([\d.]+) s \((\d+) steps", line).groups()
        out.append(float(stepping) / (int(steps) * dt))
    return out
t = {w: per_simulated_second(f"{work}/{w}") for w in ["one_auto", "one_off", "ranks_auto", "ranks_off"]}
def ratio(a, b, what):
    r = [x / y for x, y in zip(t[a], t[b])]
    print(f"{what:52s}{statistics.median(r):6.2f}x   " + " ".join(f"{x:.2f}" for x in r))
print("stepping time per simulated second, median of the rounds' ratios   per round")
ratio("one_off", "one_auto", "one process, 2 threads: one global step / local steps")
ratio("ranks_off", "ranks_auto", "2 ranks, 1 thread each: one global step / local steps")
ratio("one_auto", "ranks_auto", "local steps: one process / 2 ranks")
ratio("one_off", "ranks_off", "one global step: one process / 2 ranks")
EOF
