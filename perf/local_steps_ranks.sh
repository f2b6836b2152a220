#!/bin/sh
# Local time steps over ranks (issue 47): the graded sphere cavity of
# perf/configs/graded_sphere_local_smoke.toml (22 k tets, four levels) to t = 30 ns, stepped four
# ways in each round: local steps and one global step, each as one process on 2 threads and as 2
# ranks of one thread. Per round, the stepping time per simulated
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
configs=$(dirname "$0")/configs
for steps in auto off; do
  sed -e 's/^steps = 10$/t_end = 30e-9/' -e "s/^local_steps = \"auto\"$/local_steps = \"$steps\"/" \
    -e "s/^file = .*/file = \"$steps.h5\"/" "$configs/graded_sphere_local_smoke.toml" >"$work/$steps.toml"
  grep -q '^t_end = 30e-9$' "$work/$steps.toml" ||
    { echo "local_steps_ranks.sh: $configs/graded_sphere_local_smoke.toml no longer has steps = 10" >&2; exit 1; }
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
