#!/usr/bin/env python3
"""Compares two dgatd output files dataset by dataset: for each numeric dataset present in both, its
largest difference relative to the first file's largest magnitude, and whether the two are equal
bit for bit (runs over ranks against one process, docs/method/parallel.md). Exit status 1 when a dataset
differs by more than --tolerance (default: any difference passes; the figures are the output).

    python3 perf/ranks/compare_outputs.py ONE.h5 OTHER.h5 [--tolerance 1e-12]
"""
import argparse
import sys

import h5py
import numpy as np


def datasets(group, prefix=""):
    found = {}
    for name, item in group.items():
        if isinstance(item, h5py.Group):
            found.update(datasets(item, prefix + name + "/"))
        else:
            found[prefix + name] = item[()]
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("one")
    parser.add_argument("other")
    parser.add_argument("--tolerance", type=float, default=None)
    args = parser.parse_args()
    with h5py.File(args.one, "r") as a, h5py.File(args.other, "r") as b:
        dt_a, dt_b = float(a.attrs["dt"]), float(b.attrs["dt"])
        print(f"dt {dt_a!r} and {dt_b!r}: {'equal' if dt_a == dt_b else f'{abs(dt_a - dt_b) / dt_a:.3e} apart'}")
        first, second = datasets(a), datasets(b)
    worst = 0.0
    for name in sorted(first):
        if name not in second:
            print(f"{name}: only in {args.one}")
            continue
        x, y = np.asarray(first[name]), np.asarray(second[name])
        if x.dtype.kind not in "fiu":
            continue
        if x.shape != y.shape:
            print(f"{name}: shapes {x.shape} and {y.shape}")
            worst = np.inf
            continue
        scale = float(np.max(np.abs(x))) if x.size else 0.0
        difference = float(np.max(np.abs(x - y))) / (scale or 1.0) if x.size else 0.0
        worst = max(worst, difference)
        print(f"{name:40s} {str(x.shape):16s} {difference:.3e}{'  bit for bit' if np.array_equal(x, y) else ''}")
    print(f"largest relative difference {worst:.3e}")
    return 1 if args.tolerance is not None and worst > args.tolerance else 0


if __name__ == "__main__":
    sys.exit(main())
