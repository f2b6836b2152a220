#!/usr/bin/env python3
"""Plot a magnitude spectrum written by `dgatd spectrum` (CSV: frequency_hz,magnitude) and mark
its peaks.

    plot_spectrum.py SPECTRUM.csv PLOT.png [--peaks F1 F2 ...] [--title TEXT]
"""
import argparse

import matplotlib

matplotlib.use("Agg")  # no display needed: the plot only goes to a file
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def frequency_unit(fmax):
    for name, hertz in (("GHz", 1e9), ("MHz", 1e6), ("kHz", 1e3)):
        if fmax >= hertz:
            return name, hertz
    return "Hz", 1.0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv", help="spectrum CSV from dgatd spectrum")
    parser.add_argument("png", help="plot to write")
    parser.add_argument("--peaks", type=float, nargs="*", default=[], help="peak frequencies in Hz to mark")
    parser.add_argument("--title", default="", help="plot title")
    args = parser.parse_args()

    data = np.loadtxt(args.csv, delimiter=",", skiprows=1, ndmin=2)
    frequency, magnitude = data[:, 0], data[:, 1]
    unit, hertz = frequency_unit(frequency.max() if frequency.size else 0.0)

    figure, axes = plt.subplots(figsize=(9, 4.5))
    # A log scale shows weak modes next to strong ones; seven decades below the top is as deep as a
    # double-precision run's modes go, and it keeps the near-zero bin at f = 0 from squashing the plot.
    top = magnitude.max() if np.any(magnitude > 0) else 1.0
    floor = top * 1e-7
    axes.semilogy(frequency / hertz, np.maximum(magnitude, floor), linewidth=0.9)
    for peak in args.peaks:
        height = np.interp(peak, frequency, magnitude)
        axes.axvline(peak / hertz, color="tab:red", linewidth=0.6, alpha=0.5)
        axes.plot(peak / hertz, max(height, floor), "v", color="tab:red")
        axes.annotate(f"{peak / hertz:.4g}", (peak / hertz, max(height, floor)), textcoords="offset points",
                      xytext=(0, 6), ha="center", fontsize=8, color="tab:red")
    axes.set_ylim(floor, top * 5)
    axes.set_xlabel(f"frequency ({unit})")
    axes.set_ylabel("magnitude")
    axes.set_title(args.title)
    axes.grid(True, which="both", alpha=0.3)
    figure.tight_layout()
    figure.savefig(args.png, dpi=120)


if __name__ == "__main__":
    main()
