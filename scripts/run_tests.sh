#!/usr/bin/env bash
# README command 2: install what the tests need (as command 1 does), build everything with the
# openmp preset (OpenMP + Serial) and run the whole suite: unit tests on Serial and on OpenMP at 1
# and 2 threads, the physics regression cases, a smoke run of every benchmark and the Python package.
# DGATD_SANITIZE=1 also builds the debug-sanitize preset (address + undefined) and runs its unit tests.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each phase says how long it took, so a slow machine shows where its time went.
phase() {
  local started=$SECONDS
  "$@"
  echo "[run_tests] $* took $((SECONDS - started)) s"
}

phase scripts/setup_dependencies.sh --tests
scripts/configure_preset.sh openmp -DDGATD_ENABLE_TESTS=ON -DDGATD_ENABLE_PYTHON=ON -DPython_EXECUTABLE=/usr/bin/python3 >/dev/null
phase cmake --build --preset openmp -j "$(nproc)"
phase ctest --preset openmp -j "$(nproc)"
if [ "${DGATD_SANITIZE:-0}" = 1 ]; then
  scripts/configure_preset.sh debug-sanitize -DDGATD_ENABLE_TESTS=ON >/dev/null
  phase cmake --build --preset debug-sanitize -j "$(nproc)"
  phase ctest --preset debug-sanitize -L unit -j "$(nproc)"
fi
