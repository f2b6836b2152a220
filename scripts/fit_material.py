#!/usr/bin/env python3
"""dgatd fit-material: a passive pole-residue model fitted to tabulated permittivity, printed as
[[material]] and [[material.pole]] tables (python/dgatd/materials.py has the method).

    fit_material.py DATA.csv [--poles N] [--fmin F] [--fmax F] [--region NAME] [-o FILE] [--png FILE]

Loads materials.py from the source tree beside this folder (source_tree.py), without the compiled
package.
"""
import sys

from source_tree import load

sys.exit(load("materials").main(sys.argv[1:]))
