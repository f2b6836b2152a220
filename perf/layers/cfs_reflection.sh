#!/usr/bin/env bash
# The worst |S11| over 8-12 GHz of WR-90 ended by a matched layer, against the layer's thickness and
# its complex frequency shift (cfs_frequency), read by a matched port as in
# tests/regression/test_open_waveguide.cpp (OpenWaveguide.MatchedLayerEndReflectsBelowMinus40dB).
#   perf/layers/cfs_reflection.sh DGATD [THICKNESSES_MM] [CFS_HZ]
# e.g. perf/layers/cfs_reflection.sh build/openmp/dgatd "6 9 12 16" "0 5e8 1e9 2e9"
set -euo pipefail
dgatd=$(realpath "$1")
thicknesses=${2:-"6 9 12 16"}
shifts=${3:-"0 5e8 1e9 2e9"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf "%-10s" "L (mm)"
for f in $shifts; do printf "%14s" "cfs $f Hz"; done
printf "\n"
for l in $thicknesses; do
  printf "%-10s" "$l"
  for f in $shifts; do
    cat >"$work/guide.toml" <<TOML
[mesh]
generate = "waveguide"
size = [0.02286, 0.01016, 0.15]
h = 0.0015
reproducible = true
pml = $(python3 -c "print($l / 1000)")

[[pml]]
region = "pml"
cfs_frequency = $f

[[source]]
kind = "port_te10"
surface = "port_in"
matched = true
waveform = "modulated_gaussian"
frequency = 10e9
sigma = 1.061e-10
t0 = 6.4e-10

[time]
t_end = 8e-9

[output]
file = "guide.h5"
energy_every = 100
progress = false
TOML
    (cd "$work" && "$dgatd" run guide.toml -o guide.h5 >run.log 2>&1 &&
      "$dgatd" sparams guide.h5 --fmin 8e9 --fmax 12e9 --points 17 --csv s.csv >/dev/null 2>&1) ||
      { printf "%14s" "failed"; continue; }
    worst=$(python3 - "$work/s.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("%.1f dB" % max(float(r["S11_db"]) for r in rows))
PY
)
    printf "%14s" "$worst"
  done
  printf "\n"
done
