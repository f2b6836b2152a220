#!/usr/bin/env python3
"""Draw the surface current a run's [[surface_current]] item recorded: |J_s| (A/m per V/m of the
incident wave when the run has a plane wave and a [[farfield]] at the same frequency, else A s/m) at
one of its frequencies, on the surface's triangles, seen from a direction.

    plot_surface_current.py RUN.h5 PLOT.png [--name NAME] [--frequency 0] [--elevation 25] [--azimuth -60]

The item is the run's only one unless --name says which; --frequency is the index of the frequency
among the item's. ParaView shows the same (STEM.xdmf, the grid "NAME at F Hz"); this draws it
without ParaView, with matplotlib.
"""
import argparse
import sys

import h5py
import matplotlib

matplotlib.use("Agg")  # no display needed: the plot only goes to a file
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from mpl_toolkits.mplot3d.art3d import Poly3DCollection  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", help="the run's HDF5 output")
    parser.add_argument("png", help="plot to write")
    parser.add_argument("--name", help="the [[surface_current]] item (default: the run's only one)")
    parser.add_argument("--frequency", type=int, default=0, help="index of the frequency among the item's")
    parser.add_argument("--elevation", type=float, default=25, help="view elevation (degrees)")
    parser.add_argument("--azimuth", type=float, default=-60, help="view azimuth (degrees)")
    args = parser.parse_args()

    with h5py.File(args.run, "r") as f:
        names = sorted(f["surface_currents"]) if "surface_currents" in f else []
        if not names:
            sys.exit("plot_surface_current.py: %s: no surface currents; add a [[surface_current]] item" % args.run)
        name = args.name or names[0]
        if name not in names or (args.name is None and len(names) > 1):
            sys.exit("plot_surface_current.py: %s: give --name, one of %s" % (args.run, ", ".join(names)))
        record = f["surface_currents"][name]
        frequencies = record["frequencies"][:]
        if not 0 <= args.frequency < len(frequencies):
            sys.exit("plot_surface_current.py: --frequency must be 0 to %d" % (len(frequencies) - 1))
        frequency = frequencies[args.frequency]
        at = record["transforms"][str(args.frequency)]
        current = np.linalg.norm(at["J_s_re"][:] + 1j * at["J_s_im"][:], axis=1)
        corners = record["points"][:].reshape(-1, 3, 3)
        units = "A s/m"
        # Per volt per metre of the incident wave, where a far field transformed it at this frequency.
        for far in f.get("farfield", {}).values():
            if "incident" in far and np.isclose(far["frequencies"][:], frequency).any():
                m = int(np.argmax(np.isclose(far["frequencies"][:], frequency)))
                current = current / abs(complex(*far["incident"][m]))
                units = "A/m per V/m"
                break

    figure = plt.figure(figsize=(8, 6))
    axes = figure.add_subplot(projection="3d")
    # The colours end at the 99th percentile: a conductor's edges and corners carry a few faces of
    # far larger current, which would leave the rest dark.
    top = np.percentile(current, 99)
    colours = plt.get_cmap("inferno")(np.minimum(current / top, 1))
    axes.add_collection3d(Poly3DCollection(corners, facecolors=colours, edgecolors="none"))
    low, high = corners.reshape(-1, 3).min(axis=0), corners.reshape(-1, 3).max(axis=0)
    middle, reach = (low + high) / 2, (high - low).max() / 2
    for set_limits, c in ((axes.set_xlim, 0), (axes.set_ylim, 1), (axes.set_zlim, 2)):
        set_limits(middle[c] - reach, middle[c] + reach)
    axes.set_box_aspect((1, 1, 1))
    axes.view_init(args.elevation, args.azimuth)
    axes.set_xlabel("x (m)")
    axes.set_ylabel("y (m)")
    axes.set_zlabel("z (m)")
    mappable = plt.cm.ScalarMappable(cmap="inferno", norm=plt.Normalize(0, top))
    figure.colorbar(mappable, ax=axes, shrink=0.6, extend="max", label="|J_s| (%s)" % units)
    axes.set_title("%s: |J_s| at %.4g GHz" % (name, frequency / 1e9))
    figure.savefig(args.png, dpi=90, bbox_inches="tight")
    return 0


if __name__ == "__main__":
    sys.exit(main())
