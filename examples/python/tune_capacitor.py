#!/usr/bin/env python3
"""A small optimisation loop in one Python process: the parallel-plate line of
inputs/parallel_plate_line.toml ends in a series R-L-C load (R = Z0, L = 10 nH); a golden-section
search over the capacitance C looks for the best match, the smallest |S11| at f0 = 3 GHz. The
circuit's answer: the capacitor cancels the inductor where omega0^2 L C = 1, C = 0.2814 pF.

    python3 examples/python/tune_capacitor.py [--evaluations 12]
"""

import argparse
import math
from pathlib import Path

import dgatd

INPUTS = Path(__file__).resolve().parents[2] / "inputs"
Z0 = 376.730313  # the line's impedance, ohms (its port's reference resistance)
F0 = 3e9
INDUCTANCE = 10e-9

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--evaluations", type=int, default=12, help="runs of the line the search may take")
parser.add_argument("--folder", default="out/tune_capacitor")
args = parser.parse_args()

folder = Path(args.folder).resolve()
folder.mkdir(parents=True, exist_ok=True)
line = dgatd.Simulation.from_toml(INPUTS / "parallel_plate_line.toml", report=False)
runs = 0


def s11_at_f0(capacitance):
    """|S11| at f0 of the line loaded by R = Z0 in series with L and C: one run."""
    global runs
    runs += 1
    load = {"kind": "rlc", "surface": "load", "direction": [0, 1, 0], "circuit": "series", "resistance": Z0,
            "inductance": INDUCTANCE, "capacitance": capacitance}
    sim = line.replace(lumped=[load], output={"file": str(folder / f"run_{runs}.h5")})
    sim.run(progress=False)
    # 21 points from 2.9 to 3.1 GHz: the 11th is f0.
    s = sim.results.sparameters(fmin=F0 - 0.1e9, fmax=F0 + 0.1e9, points=21)
    sim.close()
    value = abs(s.s[0][10])
    print(f"  run {runs:2d}: C = {capacitance * 1e12:.4f} pF, |S11(f0)| = {value:.4f} "
          f"({20 * math.log10(value):.1f} dB)", flush=True)
    return value


# Golden-section search over log10(C) in [0.05, 2] pF: each step keeps the bracket around the minimum.
low, high = math.log10(0.05e-12), math.log10(2e-12)
ratio = (math.sqrt(5) - 1) / 2
a, b = high - ratio * (high - low), low + ratio * (high - low)
fa, fb = s11_at_f0(10 ** a), s11_at_f0(10 ** b)
while runs < args.evaluations:
    if fa < fb:
        high, b, fb = b, a, fa
        a = high - ratio * (high - low)
        fa = s11_at_f0(10 ** a)
    else:
        low, a, fa = a, b, fb
        b = low + ratio * (high - low)
        fb = s11_at_f0(10 ** b)
best = 10 ** (a if fa < fb else b)
circuit = 1 / ((2 * math.pi * F0) ** 2 * INDUCTANCE)
print(f"best C = {best * 1e12:.4f} pF after {runs} runs, |S11(f0)| = {min(fa, fb):.4f}; "
      f"the circuit's omega0^2 L C = 1: C = {circuit * 1e12:.4f} pF ({100 * (best / circuit - 1):+.1f} %)")
