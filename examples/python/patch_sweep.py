#!/usr/bin/env python3
"""A parameter sweep in one Python process: the patch antenna of inputs/patch_antenna.toml with its
resonant length L swept around the design's 31.9 mm, the resonance (the |S11| minimum) against L.
The transmission-line model (the .geo's header) has the resonance fall as L + 2 Delta L grows.

    python3 examples/python/patch_sweep.py [--lengths 29.9,30.9,31.9,32.9,33.9] [--quick]

--quick takes a thinner air box and layer (lambda/8 and lambda/4), meshes them coarser (h_far = lambda/8)
and stops at 4 ns: a smoke run of the sweep (the tests run it so), whose resonances are rougher than
the design's.
"""

import argparse
from pathlib import Path

import dgatd

INPUTS = Path(__file__).resolve().parents[2] / "inputs"

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--lengths", default="29.9,30.9,31.9,32.9,33.9", help="patch lengths L in mm")
parser.add_argument("--quick", action="store_true", help="a coarse mesh and a short record")
parser.add_argument("--folder", default="out/patch_sweep", help="where the meshes' .geo files and outputs go")
args = parser.parse_args()

folder = Path(args.folder).resolve()
folder.mkdir(parents=True, exist_ok=True)
design = dgatd.Simulation.from_toml(INPUTS / "patch_antenna.toml", report=False)
# DefineConstants of the .geo: a thinner air box and layer, meshed coarser far from the patch.
coarse = "clear = 299792458 / 3e9 / 8;\npml = 299792458 / 3e9 / 4;\nh_far = 299792458 / 3e9 / 8;\n" if args.quick else ""

print("   L (mm)   resonance (GHz)   |S11| there (dB)")
for length_mm in (float(v) for v in args.lengths.split(",")):
    name = f"patch_L{length_mm:g}mm"
    # The .geo's parameters are DefineConstants: set before the Include, they replace the design's.
    geo = folder / f"{name}.geo"
    geo.write_text(f"L = {length_mm * 1e-3!r};\n{coarse}Include \"{INPUTS / 'patch_antenna.geo'}\";\n")
    sim = design.replace(mesh={"file": str(geo)}, output={"file": str(folder / f"{name}.h5")},
                         time={"t_end": 4e-9} if args.quick else {})
    sim.run(progress=False)
    s11 = sim.results.sparameters(fmin=2.2e9, fmax=3.8e9, points=321)
    f = s11.resonance()
    print(f"{length_mm:9.2f}   {f / 1e9:15.4f}   {s11.db(0).min():16.2f}", flush=True)
    sim.close()
