#!/usr/bin/env python3
"""Reflectance and transmittance of a layered cell at normal incidence from a dgatd run
(inputs/slab_reflectance.toml), beside the characteristic-matrix result of its layers.

    slab_reflectance.py RUN.h5 [--fmin F] [--fmax F] [--count N]

The run must be a `generate = "cell"` mesh lit by one plane wave from above (direction [0, 0, -1])
with probes "reflected" (in the scattered-field region) and "transmitted" (in the total-field region
below the layers). R = |E_r(f)|^2 / |E_inc(f)|^2 at the first, T likewise at the second, E_inc the
analytic incident wave at each probe. The layers between layer_0 and the scattered-field region
form the stack, each with its [[material]] eps_r or eps_inf (1 when none) and its poles (Debye,
Drude, Lorentz, pole-residue: eps(w) with e^(+j w t), docs/user/configuration.md); the media around
it are vacuum.
"""
import argparse
import tomllib

import h5py
import numpy as np

from source_tree import load

# eps(w) of the poles, as `dgatd.materials` evaluates it.
materials = load("materials")

C0 = 299792458.0


def shape(t, source):
    sigma = source["sigma"]
    t0 = source.get("t0", 5 * sigma)
    x = (t - t0) / sigma
    envelope = np.where(np.abs(t - t0) > 6 * sigma, 0.0, np.exp(-0.5 * x * x))
    if source["waveform"] == "gaussian":
        return envelope
    return envelope * np.sin(2 * np.pi * source["frequency"] * (t - t0))


def permittivity(material, f):
    """eps(f) of a [[material]] table with its poles (python/dgatd/materials.py)."""
    try:
        return complex(materials.permittivity(material, f))
    except ValueError as error:
        raise SystemExit("slab_reflectance.py: region %s: %s" % (material.get("region"), error)) from None


def stack(config):
    """The (material, thickness) of each layer between layer_0 and the scattered-field region, top
    first, and the height of the total-field region's top (where the incident wave's origin is)."""
    cuts = config["mesh"]["cuts"]
    materials = {m["region"]: m for m in config.get("material", [])}
    total = set(config["source"][0]["region"])
    layers = []
    top = cuts[0]
    for k in range(1, len(cuts)):
        name = "layer_%d" % k
        if name in total:
            layers.append((materials.get(name, {}), cuts[k] - cuts[k - 1]))
            top = cuts[k]
    return layers[::-1], top


def characteristic(layers, f):
    """R and T of the stack between vacuum half-spaces; with e^(+j w t) the index of a lossy layer
    has Im n < 0, the principal root of eps(w)."""
    m = np.identity(2, dtype=complex)
    for material, d in layers:
        n = np.sqrt(permittivity(material, f))
        delta = 2 * np.pi * n * d * f / C0
        m = m @ np.array([[np.cos(delta), 1j * np.sin(delta) / n], [1j * n * np.sin(delta), np.cos(delta)]])
    b = m[0, 0] + m[0, 1]
    c = m[1, 0] + m[1, 1]
    return abs((b - c) / (b + c)) ** 2, abs(2 / (b + c)) ** 2


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", help="the run's HDF5 output")
    parser.add_argument("--fmin", type=float, default=0.5e9, help="lowest frequency, Hz")
    parser.add_argument("--fmax", type=float, default=1.5e9, help="highest frequency, Hz")
    parser.add_argument("--count", type=int, default=11, help="frequencies")
    args = parser.parse_args()

    with h5py.File(args.run, "r") as run:
        config = tomllib.loads(run.attrs["config"].decode())
        t = run["time"][:]
        reflected = run["probes/reflected/E"][:, 1]
        transmitted = run["probes/transmitted/E"][:, 1]
        z_reflected = run["probes/reflected"].attrs["position"][2]
        z_transmitted = run["probes/transmitted"].attrs["position"][2]
    source = config["source"][0]
    layers, top = stack(config)
    print("%8s %9s %9s %9s %9s" % ("f (GHz)", "R", "R exact", "T", "T exact"))
    for f in np.linspace(args.fmin, args.fmax, args.count):
        kernel = np.exp(-2j * np.pi * f * t)
        ratio = []
        for values, z in ((reflected, z_reflected), (transmitted, z_transmitted)):
            incident = shape(t - (top - z) / C0, source)
            ratio.append(abs(np.sum(values * kernel) / np.sum(incident * kernel)) ** 2)
        exact = characteristic(layers, f)
        print("%8.3f %9.4f %9.4f %9.4f %9.4f" % (f / 1e9, ratio[0], exact[0], ratio[1], exact[1]))


if __name__ == "__main__":
    main()
