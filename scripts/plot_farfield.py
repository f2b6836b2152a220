#!/usr/bin/env python3
"""Plot the far field written by `dgatd farfield`: for each frequency, polar cuts (directivity in
dBi, or the radar cross section in dBsm for a plane-wave run) and a theta-phi map.

    plot_farfield.py GRID.csv CUTS.csv PLOT.png
"""
import argparse

import matplotlib

matplotlib.use("Agg")  # no display needed: the plot only goes to a file
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("grid", help="theta-phi grid CSV from dgatd farfield")
    parser.add_argument("cuts", help="cuts CSV from dgatd farfield")
    parser.add_argument("png", help="plot to write")
    args = parser.parse_args()

    grid = np.genfromtxt(args.grid, delimiter=",", names=True)
    cuts = np.genfromtxt(args.cuts, delimiter=",", names=True)
    rcs = "rcs_dbsm" in grid.dtype.names
    column, label = ("rcs_dbsm", "RCS (dBsm)") if rcs else ("directivity_dbi", "directivity (dBi)")
    frequencies = np.unique(grid["frequency_hz"])
    figure = plt.figure(figsize=(11, 4.5 * len(frequencies)))
    for row, f in enumerate(frequencies):
        polar = figure.add_subplot(len(frequencies), 2, 2 * row + 1, projection="polar")
        polar.set_theta_zero_location("N")
        polar.set_theta_direction(-1)
        at_f = cuts[cuts["frequency_hz"] == f]
        floor = np.max(at_f[column]) - 40
        for phi in np.unique(at_f["cut_phi_deg"]):
            cut = at_f[at_f["cut_phi_deg"] == phi]
            polar.plot(np.radians(cut["theta_deg"]), np.maximum(cut[column], floor), label="phi = %g deg" % phi)
        polar.set_rmin(floor)
        polar.set_title("%.4g GHz: %s against theta" % (f / 1e9, label), fontsize=10)
        polar.legend(loc="upper left", bbox_to_anchor=(0.85, 1.12), fontsize=8)
        flat = figure.add_subplot(len(frequencies), 2, 2 * row + 2)
        at_f = grid[grid["frequency_hz"] == f]
        thetas, phis = np.unique(at_f["theta_deg"]), np.unique(at_f["phi_deg"])
        values = at_f[column].reshape(len(thetas), len(phis))
        image = flat.pcolormesh(phis, thetas, np.maximum(values, np.max(values) - 40), shading="nearest")
        flat.set_xlabel("phi (deg)")
        flat.set_ylabel("theta (deg)")
        flat.invert_yaxis()
        figure.colorbar(image, ax=flat, label=label)
    figure.tight_layout()
    figure.savefig(args.png, dpi=110)


if __name__ == "__main__":
    main()
