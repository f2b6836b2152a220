#!/usr/bin/env python3
"""Compare the results of two sets of dgatd runs bit for bit.

    scripts/compare_outputs.py BEFORE AFTER

BEFORE and AFTER are folders (searched recursively) of dgatd outputs (*.h5, checkpoints excluded),
matched by their path relative to the folder, or with --by-name by their file names alone (for
test scratch folders whose names hold a process id). Every dataset of each pair (probes, energy,
snapshots, ports, mesh) and every numeric attribute (dt, dt_max, steps) must be equal to the bit.
Prints one line per file and a summary; exits 1 on any difference or missing file.
"""
import argparse
import os
import re
import sys

import h5py
import numpy as np


def outputs(root, by_name):
    found = {}
    for folder, _, files in os.walk(root):
        for name in files:
            if not name.endswith(".h5") or name.endswith(".checkpoint.h5"):
                continue
            path = os.path.join(folder, name)
            key = name if by_name else os.path.relpath(path, root)
            if by_name:
                # A scratch folder dgatd_<tag>_<pid>_<clock>: keep the tag, drop what differs per run.
                tag = re.sub(r"_\d+_\d+$", "", os.path.basename(folder))
                key = os.path.join(tag, name)
            found.setdefault(key, []).append(path)
    return found


def contents(path):
    items = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset):
                items["dataset " + name] = obj[()]
            for key, value in obj.attrs.items():
                if isinstance(value, (np.floating, np.integer, float, int)):
                    items["attribute %s@%s" % (name, key)] = value
        for key, value in f.attrs.items():
            if isinstance(value, (np.floating, np.integer, float, int)):
                items["attribute /@" + key] = value
        f.visititems(visit)
    return items


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    return a.tobytes() == b.tobytes()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--by-name", action="store_true", help="match test scratch folders by tag and file name")
    args = parser.parse_args()
    before, after = outputs(args.before, args.by_name), outputs(args.after, args.by_name)
    failures = 0
    compared = 0
    for key in sorted(set(before) | set(after)):
        if key not in before or key not in after or len(before[key]) != len(after[key]):
            print("MISSING %s (before %d, after %d)" % (key, len(before.get(key, [])), len(after.get(key, []))))
            failures += 1
            continue
        for a_path, b_path in zip(sorted(before[key]), sorted(after[key])):
            a, b = contents(a_path), contents(b_path)
            differing = [name for name in sorted(set(a) | set(b)) if name not in a or name not in b or not same(a[name], b[name])]
            compared += 1
            if differing:
                failures += 1
                print("DIFFERS %s: %s" % (key, ", ".join(differing[:6])))
            else:
                print("same    %s (%d datasets and attributes)" % (key, len(a)))
    print("%d compared, %d differ or are missing" % (compared, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
