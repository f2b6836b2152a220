#!/usr/bin/env python3
"""Plot the S-parameters written by `dgatd sparams` (CSV: frequency_hz, then S<k>1_db, S<k>1_deg
per port): magnitudes in dB above, phases in degrees below. When the CSV also has the driven lumped
port's input impedance (columns zin_re_ohm, zin_im_ohm), a third panel shows its resistance R and
reactance X in ohms. With --smith, S11 also goes on a Smith chart, its locus coloured by frequency.

    plot_sparams.py SPARAMS.csv PLOT.png [--title TEXT] [--smith SMITH.png] [--resistance R]

--resistance R: the reference resistance of S11 in ohms (the port's), for the titles and the
impedance panel's reference line.
"""
import argparse
import sys

import matplotlib

matplotlib.use("Agg")  # no display needed: the plot only goes to a file
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.collections import LineCollection  # noqa: E402

IMPEDANCE_COLUMNS = ("zin_re_ohm", "zin_im_ohm")
SMITH_RESISTANCES = (0.2, 0.5, 1.0, 2.0, 5.0)  # r = 0 is the unit circle itself
SMITH_REACTANCES = (0.2, 0.5, 1.0, 2.0, 5.0)   # each drawn with both signs


def read_table(path):
    table = np.atleast_1d(np.genfromtxt(path, delimiter=",", names=True))
    if table.dtype.names is None or len(table.dtype.names) < 2:
        sys.exit(f"plot_sparams.py: {path} has no columns after the frequency")
    return table


def reference_label(resistance):
    return f"Z0 = {resistance:g} \u03a9" if resistance is not None else ""


def plot_parameters(table, png, title, resistance):
    names = table.dtype.names
    frequency = table[names[0]] / 1e9
    has_impedance = all(column in names for column in IMPEDANCE_COLUMNS)
    rows = 3 if has_impedance else 2
    figure, axes = plt.subplots(rows, 1, sharex=True, figsize=(8, 3 * rows))
    magnitude, phase = axes[0], axes[1]
    for column in names[1:]:
        if column in IMPEDANCE_COLUMNS:
            continue
        label = column.split("_")[0]
        if column.endswith("_db"):
            magnitude.plot(frequency, table[column], label=f"|{label}|")
        elif column.endswith("_deg"):
            phase.plot(frequency, table[column], label=f"arg {label}")
    magnitude.set_ylabel("magnitude (dB)")
    phase.set_ylabel("phase (degrees)")
    if has_impedance:
        impedance = axes[2]
        impedance.plot(frequency, table["zin_re_ohm"], label="R = Re Z_in")
        impedance.plot(frequency, table["zin_im_ohm"], label="X = Im Z_in")
        impedance.axhline(0.0, color="0.5", linewidth=0.8)
        if resistance is not None:
            impedance.axhline(resistance, color="0.5", linestyle="--", linewidth=0.8,
                              label=reference_label(resistance))
        impedance.set_ylabel("input impedance (\u03a9)")
    axes[-1].set_xlabel("frequency (GHz)")
    for panel in axes:
        panel.grid(True, alpha=0.3)
        if panel.get_legend_handles_labels()[0]:
            panel.legend()
    heading = ", ".join(text for text in (title, reference_label(resistance)) if text)
    if heading:
        magnitude.set_title(heading)
    figure.tight_layout()
    figure.savefig(png, dpi=120)
    plt.close(figure)


def reflection(z):
    """Reflection coefficient of the normalised impedance z."""
    return (z - 1) / (z + 1)


def draw_smith_grid(axes):
    grid = dict(color="0.75", linewidth=0.7, zorder=1)
    theta = np.linspace(0, 2 * np.pi, 721)
    axes.plot(np.cos(theta), np.sin(theta), color="0.3", linewidth=1.2, zorder=1)  # r = 0, |S11| = 1
    axes.plot([-1, 1], [0, 0], **grid)                                               # x = 0
    for r in SMITH_RESISTANCES:
        centre, radius = r / (1 + r), 1 / (1 + r)
        axes.plot(centre + radius * np.cos(theta), radius * np.sin(theta), **grid)
        axes.annotate(f"{r:g}", (centre - radius, 0), textcoords="offset points", xytext=(2, 2),
                      fontsize=7, color="0.4")
    # Constant-reactance arcs: z = r + jx for r from 0 to infinity, which stays inside the disc.
    r = np.concatenate(([0.0], np.logspace(-3, 4, 400)))
    for x in SMITH_REACTANCES:
        for sign in (1, -1):
            gamma = reflection(r + 1j * sign * x)
            axes.plot(gamma.real, gamma.imag, **grid)
            tip = reflection(1j * sign * x)
            axes.annotate(f"{sign * x:+g}j", (tip.real, tip.imag), textcoords="offset points",
                          xytext=(6 * tip.real, 6 * tip.imag), fontsize=7, color="0.4",
                          ha="left" if tip.real >= 0 else "right", va="bottom" if sign > 0 else "top")
    axes.plot([1], [0], marker="o", markersize=2, color="0.3")  # open circuit
    axes.set_xlim(-1.12, 1.12)
    axes.set_ylim(-1.12, 1.12)
    axes.set_aspect("equal")
    axes.axis("off")


def plot_smith(table, png, title, resistance):
    names = table.dtype.names
    if "S11_db" not in names or "S11_deg" not in names:
        sys.exit("plot_sparams.py: --smith needs the columns S11_db and S11_deg")
    frequency = table[names[0]] / 1e9
    gamma = 10 ** (table["S11_db"] / 20) * np.exp(1j * np.radians(table["S11_deg"]))

    figure, axes = plt.subplots(figsize=(7, 6.2))
    draw_smith_grid(axes)
    points = np.column_stack((gamma.real, gamma.imag))
    if len(points) > 1:
        segments = np.stack((points[:-1], points[1:]), axis=1)
        locus = LineCollection(segments, cmap="viridis", linewidth=2, zorder=3)
        locus.set_array((frequency[:-1] + frequency[1:]) / 2)
        locus.set_clim(frequency.min(), frequency.max())
        axes.add_collection(locus)
        bar = figure.colorbar(locus, ax=axes, fraction=0.04, pad=0.02)
        bar.set_label("frequency (GHz)")
    marks = [(0, "o", "start"), (len(frequency) - 1, "s", "end")]
    best = int(np.argmin(np.abs(gamma)))
    if best not in (0, len(frequency) - 1):
        marks.append((best, "*", "min |S11|"))
    for index, marker, what in marks:
        point = gamma[index]
        axes.plot(point.real, point.imag, marker=marker, markersize=9 if marker == "*" else 7,
                  color="black", markerfacecolor="white" if marker != "*" else "gold", zorder=4,
                  linestyle="none", label=f"{what}: {frequency[index]:.4g} GHz, "
                                          f"{20 * np.log10(max(abs(point), 1e-300)):.1f} dB")
    axes.legend(loc="lower left", fontsize=8, framealpha=0.9)
    heading = ", ".join(text for text in (title, "S11", reference_label(resistance)) if text)
    axes.set_title(heading)
    figure.tight_layout()
    figure.savefig(png, dpi=120)
    plt.close(figure)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv", help="S-parameter CSV from dgatd sparams")
    parser.add_argument("png", help="plot to write")
    parser.add_argument("--title", default="", help="plot title")
    parser.add_argument("--smith", metavar="SMITH.png", help="also write a Smith chart of S11 to this file")
    parser.add_argument("--resistance", type=float, metavar="R",
                        help="reference resistance of S11 in ohms (shown in the titles)")
    args = parser.parse_args()
    if args.resistance is not None and not args.resistance > 0:
        parser.error("--resistance must be positive")

    table = read_table(args.csv)
    plot_parameters(table, args.png, args.title, args.resistance)
    if args.smith:
        plot_smith(table, args.smith, args.title, args.resistance)


if __name__ == "__main__":
    main()
