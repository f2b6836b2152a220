#!/usr/bin/env python3
"""Plot the S-parameters written by `dgatd sparams` (CSV: frequency_hz, then S<k>1_db, S<k>1_deg
per port): magnitudes in dB above, phases in degrees below.

    plot_sparams.py SPARAMS.csv PLOT.png [--title TEXT]
"""
import argparse

import matplotlib

matplotlib.use("Agg")  # no display needed: the plot only goes to a file
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv", help="S-parameter CSV from dgatd sparams")
    parser.add_argument("png", help="plot to write")
    parser.add_argument("--title", default="", help="plot title")
    args = parser.parse_args()

    table = np.genfromtxt(args.csv, delimiter=",", names=True)
    names = table.dtype.names
    frequency = table[names[0]] / 1e9
    figure, (magnitude, phase) = plt.subplots(2, 1, sharex=True, figsize=(8, 6))
    for column in names[1:]:
        label = column.split("_")[0]
        if column.endswith("_db"):
            magnitude.plot(frequency, table[column], label=f"|{label}|")
        else:
            phase.plot(frequency, table[column], label=f"arg {label}")
    magnitude.set_ylabel("magnitude (dB)")
    phase.set_ylabel("phase (degrees)")
    phase.set_xlabel("frequency (GHz)")
    for axes in (magnitude, phase):
        axes.grid(True, alpha=0.3)
        axes.legend()
    if args.title:
        magnitude.set_title(args.title)
    figure.tight_layout()
    figure.savefig(args.png, dpi=120)


if __name__ == "__main__":
    main()
