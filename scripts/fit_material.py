#!/usr/bin/env python3
"""dgatd fit-material: a passive pole-residue model fitted to tabulated permittivity, printed as
[[material]] and [[material.pole]] tables (python/dgatd/materials.py has the method).

    fit_material.py DATA.csv [--poles N] [--fmin F] [--fmax F] [--region NAME] [-o FILE] [--png FILE]

Loads materials.py from the source tree beside this folder, without the compiled package.
"""
import importlib.util
import pathlib
import sys

path = pathlib.Path(__file__).resolve().parent.parent / "python" / "dgatd" / "materials.py"
spec = importlib.util.spec_from_file_location("dgatd_materials", path)
materials = importlib.util.module_from_spec(spec)
spec.loader.exec_module(materials)
sys.exit(materials.main(sys.argv[1:]))
