#!/usr/bin/env python3
"""What driving a run from Python costs against `dgatd run`: the cylinder resonator cut to N steps,
run by the command line and by dgatd.Simulation in turn, R rounds; per round the ratio of the
stepping times (each run's own stage timer) and of the whole runs (set-up to closed output, without
the interpreter's start). Prints each round, then the medians of the ratios.

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

STEPPING = re.compile(r"stepping ([0-9.]+) s")


def command_line(config, output):
    """Whole run (s, the process less its start: the set-up's own timers) and stepping (s)."""
    started = time.perf_counter()
    done = subprocess.run([args.dgatd, "run", str(config), "-o", str(output)], capture_output=True, text=True,
                          check=True)
    wall = time.perf_counter() - started
    return wall, float(STEPPING.search(done.stdout).group(1))


def python(config, output):
    started = time.perf_counter()
    sim = dgatd.Simulation.from_toml(config, output_file=output, report=False)
    result = sim.run(progress=False)
    sim.close()
    return time.perf_counter() - started, result["times"]["stepping"]


with tempfile.TemporaryDirectory() as folder:
    config = Path(folder) / "cylinder.toml"
    config.write_text(text)
    dgatd.initialize()  # Kokkos's start is the interpreter's, not the run's
    python(config, Path(folder) / "warm.h5")
    rows = []
    print(f"cylinder resonator, {args.steps} steps, {dgatd.backend()['default_space']} "
          f"(concurrency {dgatd.backend()['concurrency']})")
    print("round   cli whole (s)  python whole (s)  ratio   cli stepping (s)  python stepping (s)  ratio")
    for r in range(args.rounds):
        cli_wall, cli_step = command_line(config, Path(folder) / "cli.h5")
        py_wall, py_step = python(config, Path(folder) / "python.h5")
        rows.append((cli_wall, py_wall, py_wall / cli_wall, cli_step, py_step, py_step / cli_step))
        print(f"{r:5d}  {cli_wall:14.3f}  {py_wall:16.3f}  {py_wall / cli_wall:5.3f}  {cli_step:17.3f}  "
              f"{py_step:19.3f}  {py_step / cli_step:5.3f}", flush=True)
    whole = statistics.median(row[2] for row in rows)
    stepping = statistics.median(row[5] for row in rows)
    print(f"median python / command line: whole run {whole:.3f} (the command line's includes its process "
          f"start and Kokkos's), stepping {stepping:.3f}")
    print(json.dumps({"benchmark": "python_overhead", "steps": args.steps, "rounds": args.rounds,
                      "median_whole_ratio": whole, "median_stepping_ratio": stepping}))
sys.exit(0)
