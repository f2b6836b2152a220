"""Roofline and time-per-step plots from the JSON records of `dgatd bench --json FILE`.

Usage (numpy and matplotlib needed; the python3 first on PATH may lack them, the system one has
them):
    /usr/bin/python3 perf/plot_roofline.py results.json [more.json ...] -o out_prefix

Writes out_prefix_roofline.png: the measured STREAM triad roof (GB/s x arithmetic intensity) of
each backend, and one point per kernel at its arithmetic intensity (flops / modelled bytes) and
attained GFLOP/s, at the largest size, for every layout measured; and out_prefix_step_time.png:
time per whole leapfrog step against DoFs, fractioned (each layout) and assembled, per backend,
like Fig. 5 of the paper. Records of mesh files (`dgatd bench --mesh`) are drawn beside the boxes,
one colour per mesh and ordering, so a real mesh's distance from the roof shows next to the box's.
"""

import argparse
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen before pyplot loads)
import numpy as np  # noqa: E402

KERNEL_MARKERS = {
    "stream_copy": "s",
    "stream_triad": "^",
    "faraday": "o",
    "ampere": "D",
    "step_fractioned": "*",
    "step_assembled": "X",
}


def load(paths):
    records = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            mine = json.load(handle)
        if not isinstance(mine, list) or not mine:
            sys.exit(f"{path}: expected a non-empty JSON list of benchmark records")
        records += mine
    return records


def is_box(record):
    return record.get("mesh", "box") == "box"


def mesh_label(record):
    return f"{record['mesh'].rsplit('/', 1)[-1]} ({record.get('ordering', '?')})"


def mesh_series(records):
    """The (mesh, ordering) pairs of mesh-file records, in the order they were measured."""
    seen = []
    for r in records:
        if not is_box(r) and (r["mesh"], r.get("ordering")) not in seen:
            seen.append((r["mesh"], r.get("ordering")))
    return seen


def backends_of(records):
    seen = []
    for r in records:
        key = (r["backend"], r["threads"])
        if key not in seen:
            seen.append(key)
    return seen


def title_of(records):
    first = records[0]
    return f"{first.get('cpu', '?')} ({first.get('host', '?')}, {first.get('date', '?')[:10]})"


def plot_roofline(records, path):
    fig, ax = plt.subplots(figsize=(8, 5.5))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    points = [r for r in records if r["flops"] > 0]
    low = min(r["arithmetic_intensity"] for r in points) / 3
    high = max(r["arithmetic_intensity"] for r in points) * 3
    intensities = np.logspace(np.log10(low), np.log10(high), 100)
    boxes = [r for r in records if is_box(r)]
    for index, (backend, threads) in enumerate(backends_of(boxes)):
        color = colors[index % len(colors)]
        mine = [r for r in boxes if r["backend"] == backend and r["threads"] == threads]
        largest = max(r["dofs"] for r in mine)
        at_largest = [r for r in mine if r["dofs"] == largest]
        triads = [r["gbps"] for r in at_largest if r["kernel"] == "stream_triad"]
        if not triads:
            continue
        roof = float(np.median(triads))
        ax.loglog(intensities, roof * intensities, color=color, lw=1.5,
                  label=f"{backend} x{threads}: measured triad roof {roof:.1f} GB/s")
        default_layout = {}
        for r in at_largest:
            default_layout.setdefault(r["kernel"], r["layout"])
        for r in at_largest:
            if r["flops"] <= 0:
                continue
            gflops = r["flops"] / r["seconds_median"] * 1e-9
            filled = r["layout"] == default_layout[r["kernel"]]
            ax.loglog(r["arithmetic_intensity"], gflops, KERNEL_MARKERS.get(r["kernel"], "o"),
                      color=color, ms=8, mfc=color if filled else "none")
            if filled and not r["kernel"].startswith("stream"):
                ax.annotate(f"{r['kernel']} {r['fraction_of_triad']:.2f}", (r["arithmetic_intensity"], gflops),
                            textcoords="offset points", xytext=(7, -3), fontsize=7, color=color)
    for index, (mesh, ordering) in enumerate(mesh_series(records)):
        color = colors[(len(backends_of(boxes)) + index) % len(colors)]
        mine = [r for r in records if r.get("mesh") == mesh and r.get("ordering") == ordering and r["flops"] > 0]
        for r in mine:
            gflops = r["flops"] / r["seconds_median"] * 1e-9
            ax.loglog(r["arithmetic_intensity"], gflops, KERNEL_MARKERS.get(r["kernel"], "o"), color=color, ms=8)
            ax.annotate(f"{r['kernel']} {r['fraction_of_triad']:.2f}", (r["arithmetic_intensity"], gflops),
                        textcoords="offset points", xytext=(7, -3), fontsize=7, color=color)
        triad = np.median([r["triad_gbps"] for r in mine])
        ax.plot([], [], "o", color=color, label=f"{mesh_label(mine[0])}, same-run triad {triad:.1f} GB/s")
    for kernel, marker in KERNEL_MARKERS.items():
        if kernel != "stream_copy":
            ax.plot([], [], marker, color="gray", mfc="none", label=kernel)
    ax.set_xlabel("arithmetic intensity [flop / modelled byte]")
    ax.set_ylabel("attained [GFLOP/s]")
    ax.set_title("Roofline at the largest size; labels: fraction of the same-run triad\n"
                 "(filled: default layout, hollow: other layouts) " + title_of(records), fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)


def plot_step_time(records, path):
    fig, ax = plt.subplots(figsize=(8, 5.5))
    series = {}
    for r in records:
        if r["kernel"] not in ("step_fractioned", "step_assembled") or not is_box(r):
            continue
        key = (r["backend"], r["threads"], r["kernel"], r["layout"])
        series.setdefault(key, []).append((r["dofs"], r["seconds_median"]))
    for (backend, threads, kernel, layout), points in sorted(series.items()):
        points.sort()
        dofs, seconds = zip(*points)
        style = "-" if kernel == "step_fractioned" else "--"
        ax.loglog(dofs, np.array(seconds) * 1e3, style, marker=KERNEL_MARKERS[kernel],
                  label=f"{backend} x{threads} {kernel.replace('step_', '')} {layout}")
    for r in records:
        if r["kernel"] == "step_fractioned" and not is_box(r):
            ax.loglog(r["dofs"], r["seconds_median"] * 1e3, "P", ms=9,
                      label=f"{r['backend']} x{r['threads']} {mesh_label(r)}")
    ax.set_xlabel("DoFs (fractioned unknowns 2E + 4T)")
    ax.set_ylabel("time per leapfrog step [ms]")
    ax.set_title("Time per step vs DoFs (median of interleaved rounds)\n" + title_of(records), fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(
        description="Roofline and time-per-step PNGs from `dgatd bench --json` records. "
        "Run with the system Python: /usr/bin/python3 perf/plot_roofline.py results.json -o out_prefix")
    parser.add_argument("json", nargs="+",
                        help="records written by dgatd bench --json (or perf/bench_kernels --json); several "
                        "files are drawn together, e.g. the boxes and a --mesh run")
    parser.add_argument("-o", "--output", default="bench", help="prefix of the two PNG files (default: bench)")
    args = parser.parse_args()
    records = load(args.json)
    plot_roofline(records, f"{args.output}_roofline.png")
    plot_step_time(records, f"{args.output}_step_time.png")
    print(f"wrote {args.output}_roofline.png and {args.output}_step_time.png")


if __name__ == "__main__":
    main()
