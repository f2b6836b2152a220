#!/usr/bin/env python3
"""What driving a run from Python costs against `dgatd run`: the cylinder resonator cut to N steps,
run by the command line and by dgatd.Simulation in turn, R rounds; per round the ratios of
- the time loops: Python's whole run() call (its pieces, the Python between them, the output) over
  the command line's stepping and output stage times;
- the stepping alone (each run's own stage timer);
- the whole runs, set-up to closed output (the command line's with its process and Kokkos start).
Prints each round, then the medians of the ratios.

    PYTHONPATH=build/openmp/python python3 perf/python_overhead.py --dgatd build/openmp/dgatd [--steps 1000] [--rounds 5]
"""

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import dgatd

SOURCE = Path(__file__).resolve().parents[1]

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--dgatd", required=True, help="the dgatd executable of the same build")
parser.add_argument("--steps", type=int, default=1000)
parser.add_argument("--rounds", type=int, default=5)
parser.add_argument("--smoke", action="store_true", help="50 steps, 1 round: that it runs")
args = parser.parse_args()
if args.smoke:
    args.steps, args.rounds = 50, 1

text = (SOURCE / "inputs" / "cylinder_resonator.toml").read_text()
text = re.sub(r"(?m)^t_end = .*$", f"steps = {args.steps}", text)

TIMES = re.compile(r"stepping ([0-9.]+) s .*; output ([0-9.]+) s")


def command_line(config, output):
    """Whole run, time loop (stepping and output) and stepping, s."""
    started = time.perf_counter()
    done = subprocess.run([args.dgatd, "run", str(config), "-o", str(output)], capture_output=True, text=True,
                          check=True)
    wall = time.perf_counter() - started
    stepping, written = (float(v) for v in TIMES.search(done.stdout).groups())
    return wall, stepping + written, stepping


def python(config, output):
    started = time.perf_counter()
    sim = dgatd.Simulation.from_toml(config, output_file=output, report=False).setup()
    loop_started = time.perf_counter()
    result = sim.run(progress=False)
    loop = time.perf_counter() - loop_started
    sim.close()
    return time.perf_counter() - started, loop, result["times"]["stepping"]


with tempfile.TemporaryDirectory() as folder:
    config = Path(folder) / "cylinder.toml"
    config.write_text(text)
    dgatd.initialize()  # Kokkos's start is the interpreter's, not the run's
    python(config, Path(folder) / "warm.h5")
    rows = []
    print(f"cylinder resonator, {args.steps} steps, {dgatd.backend()['default_space']} "
          f"(concurrency {dgatd.backend()['concurrency']})")
    print("round   time loop: cli (s)  python (s)  ratio   stepping: cli (s)  python (s)  ratio   "
          "whole: cli (s)  python (s)  ratio")
    for r in range(args.rounds):
        cli = command_line(config, Path(folder) / "cli.h5")
        py = python(config, Path(folder) / "python.h5")
        ratios = [p / c for p, c in zip(py, cli)]
        rows.append(ratios)
        print(f"{r:5d}  {cli[1]:18.3f}  {py[1]:10.3f}  {ratios[1]:5.3f}  {cli[2]:17.3f}  {py[2]:10.3f}  "
              f"{ratios[2]:5.3f}  {cli[0]:14.3f}  {py[0]:10.3f}  {ratios[0]:5.3f}", flush=True)
    whole, loop, stepping = (statistics.median(row[k] for row in rows) for k in range(3))
    print(f"median python / command line: time loop {loop:.3f}, stepping {stepping:.3f}, whole run {whole:.3f} "
          "(the command line's with its process and Kokkos start)")
    print(json.dumps({"benchmark": "python_overhead", "steps": args.steps, "rounds": args.rounds,
                      "median_loop_ratio": loop, "median_stepping_ratio": stepping, "median_whole_ratio": whole}))
sys.exit(0)
