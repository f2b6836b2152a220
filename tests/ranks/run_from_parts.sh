#!/bin/sh
# The command line of a run from parts (docs/method/parallel.md, "Meshes larger than one node"): a mesh
# file, `dgatd partition -o` into a folder, `mpirun -n 2 dgatd run` with [mesh] parts, then the same
# configuration on parts made for 3 ranks, which every rank refuses with one line and exit 1.
# Usage: run_from_parts.sh MPIEXEC DGATD SCRATCH
set -u
mpiexec=$1 dgatd=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch" || exit 2
"$dgatd" mesh box --size 1 1 1 --h 0.2 --reproducible -o "$scratch/box.msh" >/dev/null || exit 2
"$dgatd" partition "$scratch/box.msh" -n 2 -o "$scratch/parts" | tail -n 1 || exit 2
cat >"$scratch/box.toml" <<TOML
[mesh]
file = "box.msh"
parts = "parts"
[[source]]
kind = "dipole"
position = [0.3, 0.4, 0.5]
direction = [0, 0, 1]
waveform = "gaussian"
t0 = 3e-9
sigma = 0.5e-9
[time]
steps = 20
[[probe]]
name = "p"
position = [0.6, 0.5, 0.5]
[output]
file = "box.h5"
progress = false
TOML
"$mpiexec" -n 2 "$dgatd" run "$scratch/box.toml" 2>&1
echo "exit $?"
"$dgatd" partition "$scratch/box.msh" -n 3 -o "$scratch/parts" >/dev/null || exit 2
"$mpiexec" -n 2 "$dgatd" run "$scratch/box.toml" 2>&1
echo "exit $?"
