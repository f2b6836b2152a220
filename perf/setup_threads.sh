#!/bin/sh
# How the set-up scales over threads (issue 47, acceptance 6): a set-up-only run (20 steps) of the
# 888k-tet cylinder of `dgatd mesh cylinder --radius 1 --height 0.5 --h 0.02 --reproducible`, on 1
# and on 2 threads alternated in rounds; per stage of the run summary's time line (reading, setup,
# dt bound and the first step's start), the median over the rounds of the 1-thread time over the
# 2-thread one, with each round's ratio. The machines are shared: read the medians, not one round.
#   perf/setup_threads.sh [ROUNDS=6] [DGATD=build/openmp/dgatd]
set -eu
rounds=${1:-6}
dgatd=${2:-build/openmp/dgatd}
[ -x "$dgatd" ] || { echo "setup_threads.sh: no $dgatd; build the openmp preset's dgatd" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$dgatd" mesh cylinder --radius 1 --height 0.5 --h 0.02 --reproducible -o "$work/cylinder.msh" >/dev/null
cat >"$work/cylinder.toml" <<EOF
[mesh]
file = "cylinder.msh"

[boundary]
pec = "*"

[[source]]
kind = "dipole"
position = [0.39, 0.23, 0.21]
direction = [0, 0, 1]
waveform = "gaussian"
t0 = 3e-9
sigma = 0.5e-9

[time]
steps = 20

[output]
file = "cylinder.h5"
progress = false
EOF
i=1
while [ "$i" -le "$rounds" ]; do
  for threads in 1 2; do
    OMP_NUM_THREADS=$threads OMP_PROC_BIND=false "$dgatd" run "$work/cylinder.toml" | grep '  time:' >>"$work/t$threads"
  done
  i=$((i + 1))
done
python3 - "$work/t1" "$work/t2" <<'EOF'
import re, statistics, sys
one, two = (open(path).read().splitlines() for path in sys.argv[1:3])
def seconds(line, stage):
    return float(re.search(stage + r" ([\d.]+) s", line).group(1))
print("stage             1 thread / 2 threads (median)   per round")
for stage in ["reading", "setup", "dt bound", "first step after"]:
    ratios = [seconds(a, stage) / seconds(b, stage) for a, b in zip(one, two)]
    print(f"{stage:18s}{statistics.median(ratios):8.2f}x                        " + " ".join(f"{r:.2f}" for r in ratios))
EOF
