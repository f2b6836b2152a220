#!/usr/bin/env bash
# README command 1: install what dgatd needs (Debian packages, Kokkos + Kokkos Kernels into a cache),
# build dgatd and its Python package, print its version banner and run the default example, the
# cylindrical resonator of the fractioned-DGATD paper, then print and plot the spectrum of its probe.
# `import dgatd` then works in this user's Python: a .pth file in the user's site directory names
# build/openmp/python (no pip, nothing copied).
# Results go to out/ in the checkout: cylinder_resonator.h5 (+ .xdmf for ParaView) and the
# spectrum CSV and SVG.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup_dependencies.sh
# The build prints nothing for minutes otherwise: say what is going on and how long it took.
started=$SECONDS
echo "[build] configuring and building build/openmp/dgatd and its Python package (4 to 7 minutes on 2 cores the first time)"
# Debian's interpreter, for which setup_dependencies.sh installs numpy (a python3 met first on PATH,
# pyenv's say, would lack it).
python=/usr/bin/python3
scripts/configure_preset.sh openmp -DDGATD_ENABLE_TESTS=OFF -DDGATD_ENABLE_PYTHON=ON -DPython_EXECUTABLE=$python >/dev/null
cmake --build --preset openmp --target dgatd dgatd_python -j "$(nproc)" >/dev/null
echo "[build] done in $((SECONDS - started)) s"
site=$($python -c 'import site; print(site.getusersitepackages())')
mkdir -p "$site"
echo "$PWD/build/openmp/python" >"$site/dgatd-build.pth"
echo "[python] import dgatd: $($python -c 'import dgatd; print("dgatd", dgatd.__version__, "from", dgatd.__path__[0])')"
./build/openmp/dgatd --version
mkdir -p out
OMP_PROC_BIND=spread OMP_PLACES=threads ./build/openmp/dgatd run inputs/cylinder_resonator.toml -o out/cylinder_resonator.h5
./build/openmp/dgatd spectrum out/cylinder_resonator.h5 --probe off_axis --component z --fmin 80e6 --fmax 330e6 \
  --svg out/cylinder_resonator_spectrum.svg
echo "Expected (analytic): TM010 114.74, TM110 182.82, TM210 245.04, TM020 263.38, TM310 304.42 MHz"
