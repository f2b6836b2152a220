#!/usr/bin/env python3
"""The cylindrical PEC resonator of inputs/cylinder_resonator.toml, from Python: the run, then the
peaks of E_z at the probe next to the analytic modes, as `dgatd spectrum` prints them.

    python3 examples/python/cylinder.py [--steps N] [--output FILE.h5] [--plot FILE.png]
"""

import argparse
from pathlib import Path

import dgatd

ANALYTIC_MHZ = {"TM010": 114.74, "TM110": 182.82, "TM210": 245.04, "TM020": 263.38, "TM310": 304.42}

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--steps", type=int, help="stop after this many steps (default: the file's t_end)")
parser.add_argument("--output", default="out/cylinder_resonator_python.h5")
parser.add_argument("--plot", help="also draw the spectrum into this image (matplotlib)")
args = parser.parse_args()

config = Path(__file__).resolve().parents[2] / "inputs" / "cylinder_resonator.toml"
Path(args.output).parent.mkdir(parents=True, exist_ok=True)
sim = dgatd.Simulation.from_toml(config, output_file=args.output)
sim.run(steps=args.steps)

spectrum = sim.results.probe("off_axis").spectrum("Ez", fmin=80e6, fmax=330e6)
print("peaks of E_z at probe off_axis:")
print(spectrum.table(), end="")
for k, f in enumerate(spectrum.peaks.frequency, 1):
    nearest = min(ANALYTIC_MHZ, key=lambda mode: abs(ANALYTIC_MHZ[mode] - f / 1e6))
    print(f"peak {k} at {f / 1e6:.2f} MHz: nearest analytic mode {nearest}, {ANALYTIC_MHZ[nearest]:.2f} MHz")
if args.plot:
    ax = spectrum.plot()
    ax.figure.savefig(args.plot, dpi=120)
    print(f"wrote {args.plot}")
