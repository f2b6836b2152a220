#!/usr/bin/env python3
"""A scaling model of runs over many H100s (issue 21, item 6): projected step time and efficiency of
the fractioned step for 1 G unknowns on 8, 64 and 512 GPUs, strong and weak, from measured figures
and stated link bandwidths. A model, not a measurement: every input is printed with its source.

    python3 perf/ranks/scaling_model.py [--gpu-aware] [--no-overlap]
"""
import argparse

# Measured (sources in docs/method/parallel.md and the issue):
SECONDS_PER_UNKNOWN = 4.45e-3 / 66e6  # one H100, a plain box of 66 M unknowns, 4.45 ms per step
GPU_CAPACITY = 66e6                   # unknowns one H100 (80 GB) holds
# dgatd partition on the 888k-tet cylinder (5.7 M unknowns), 8 parts of 0.71 M unknowns: the busiest
# part receives 243.2 KB per step with one exchange and the ghost tets add 5.9 % of Faraday's work.
PART_UNKNOWNS = 5.7e6 / 8
PART_HALO_BYTES = 243.2e3
PART_GHOST_WORK = 0.059
# 64 parts of the same mesh: 90.9 KB and 18.6 %: between 8 and 64 parts the halo shrinks as
# n^0.47 and the ghost share grows as n^-0.55; the model extrapolates to the millions of unknowns
# per GPU with the surface law (n^(2/3), n^(-1/3)), which METIS parts of larger meshes approach.
# The heaviest part's excess over the mean: 0.0-0.5 % for 2-8 METIS parts, 2.4 % for 64 (dgatd
# partition on the 401k-tet cylinder); METIS allows 3 %.
IMBALANCE = 0.02
# Stated (not measured here):
FARADAY_SHARE = 0.45          # Faraday's share of a step's bytes (the rest: Ampere and the terms)
LAUNCH_FLOOR = 50e-6          # seconds per step below which a GPU step does not go (kernel launches)
NEIGHBOURS = 12               # parts a part exchanges with (3-D METIS parts)
MESSAGE_LATENCY = 3e-6        # seconds per message (InfiniBand, GPU-aware or staged)
NVLINK = 450e9                # bytes/s per GPU and direction, NVLink 4 within a node of 8 H100s
INFINIBAND = 50e9             # bytes/s per GPU, one InfiniBand NDR (400 Gb/s) adapter per GPU
PCIE = 50e9                   # bytes/s per direction, host staging without GPU-aware MPI (Gen5 x16)
GPUS_PER_NODE = 8


def step_time(unknowns_per_gpu, gpus, gpu_aware, overlap):
    n = unknowns_per_gpu
    ghost = PART_GHOST_WORK * (n / PART_UNKNOWNS) ** (-1 / 3) if gpus > 1 else 0.0
    imbalance = IMBALANCE if gpus > 1 else 0.0
    compute = max(n * SECONDS_PER_UNKNOWN * (1 + FARADAY_SHARE * ghost) * (1 + imbalance), LAUNCH_FLOOR)
    if gpus == 1:
        return compute, compute, 0.0
    halo_bytes = PART_HALO_BYTES * (n / PART_UNKNOWNS) ** (2 / 3)
    link = NVLINK if gpus <= GPUS_PER_NODE else INFINIBAND
    halo = halo_bytes / link + NEIGHBOURS * MESSAGE_LATENCY
    if not gpu_aware:
        halo += 2 * halo_bytes / PCIE  # device to host before sending, host to device after receiving
    # Overlap hides the messages behind Faraday on the interior tets.
    hidden = min(halo, FARADAY_SHARE * compute) if overlap else 0.0
    return compute + halo - hidden, compute, halo - hidden


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpu-aware", action="store_true", help="GPU-aware MPI (no host staging)")
    parser.add_argument("--no-overlap", action="store_true", help="wait for the halo at the end of the step")
    options = parser.parse_args()
    gpu_aware, overlap = options.gpu_aware, not options.no_overlap
    print(f"model: {SECONDS_PER_UNKNOWN * 1e12:.1f} ps per unknown and step on an H100, capacity "
          f"{GPU_CAPACITY / 1e6:.0f} M unknowns; halo {PART_HALO_BYTES / 1e3:.0f} KB and ghost work "
          f"{PART_GHOST_WORK:.1%} at {PART_UNKNOWNS / 1e6:.2f} M unknowns per part (surface law beyond), "
          f"parts {IMBALANCE:.0%} above the mean; "
          f"NVLink {NVLINK / 1e9:.0f} GB/s within {GPUS_PER_NODE}-GPU nodes, InfiniBand {INFINIBAND / 1e9:.0f} GB/s "
          f"between, {NEIGHBOURS} neighbours x {MESSAGE_LATENCY * 1e6:.0f} us; "
          f"{'GPU-aware MPI' if gpu_aware else f'host staging at {PCIE / 1e9:.0f} GB/s'}; "
          f"overlap {'on' if overlap else 'off'}")
    total = 1e9
    print("\nstrong scaling, 1 G unknowns:")
    print(f"{'GPUs':>6} {'M/GPU':>8} {'step ms':>9} {'visible halo ms':>16} {'efficiency':>11}")
    base = None
    for gpus in (8, 16, 64, 512):
        n = total / gpus
        if n > GPU_CAPACITY:
            print(f"{gpus:>6} {n / 1e6:>8.1f}  does not fit ({GPU_CAPACITY / 1e6:.0f} M unknowns per H100)")
            continue
        t, _, visible = step_time(n, gpus, gpu_aware, overlap)
        if base is None:
            base = (gpus, t)
        efficiency = base[1] * base[0] / (t * gpus)
        print(f"{gpus:>6} {n / 1e6:>8.1f} {t * 1e3:>9.3f} {visible * 1e3:>16.3f} {efficiency:>10.0%} (vs {base[0]})")
    per_gpu = total / 64
    print(f"\nweak scaling, {per_gpu / 1e6:.1f} M unknowns per GPU (1 G on 64):")
    print(f"{'GPUs':>6} {'G unknowns':>11} {'step ms':>9} {'visible halo ms':>16} {'efficiency':>11}")
    single, _, _ = step_time(per_gpu, 1, gpu_aware, overlap)
    for gpus in (8, 64, 512):
        t, _, visible = step_time(per_gpu, gpus, gpu_aware, overlap)
        print(f"{gpus:>6} {per_gpu * gpus / 1e9:>11.3f} {t * 1e3:>9.3f} {visible * 1e3:>16.3f} {single / t:>10.0%}")


if __name__ == "__main__":
    main()
