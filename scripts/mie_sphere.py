#!/usr/bin/env python3
"""The Mie series of a sphere of a dispersive material in vacuum: the reference a run of a particle
lit by a plane wave (`dgatd farfield`'s scattering and extinction cross sections) is compared with.

    dgatd materials --toml Ag > silver.toml
    mie_sphere.py silver.toml --radius 30e-9 --lmin 330e-9 --lmax 420e-9 [--step 3e-9]

prints, per vacuum wavelength, eps(w) of the file's first [[material]] (e^(+j w t), as dgatd takes it),
the scattering and extinction cross sections (m^2) and their efficiencies (over pi a^2), then the
wavelengths where each peaks. The series is Bohren and Huffman's BHMIE
("Absorption and Scattering of Light by Small Particles", 1983, appendix A), in their e^(-i w t):
eps enters as its complex conjugate; the cross sections, being real, are the same either way.
Loads materials.py from the source tree beside this folder (source_tree.py), without the compiled
package.
"""
import argparse
import math
import sys
import tomllib

import numpy as np
from scipy.optimize import minimize_scalar

from source_tree import load

materials = load("materials")


def efficiencies(x, eps):
    """Q_ext and Q_sca of a sphere of size x = k a and relative permittivity eps (e^(+j w t))."""
    m = np.sqrt(np.conj(eps))
    if m.imag < 0:
        m = -m
    terms = int(x + 4 * x ** (1 / 3) + 2)
    y = m * x
    # The logarithmic derivative D_n(m x) by downward recurrence: stable for any m.
    start = int(max(terms, abs(y)) + 16)
    d = np.zeros(start + 1, dtype=complex)
    for n in range(start, 0, -1):
        d[n - 1] = n / y - 1 / (d[n] + n / y)
    psi_before, psi_now = math.cos(x), math.sin(x)
    chi_before, chi_now = -math.sin(x), math.cos(x)
    ext = sca = 0.0
    for n in range(1, terms + 1):
        psi = (2 * n - 1) * psi_now / x - psi_before
        chi = (2 * n - 1) * chi_now / x - chi_before
        xi, xi_before = psi - 1j * chi, psi_now - 1j * chi_now
        a = ((d[n] / m + n / x) * psi - psi_now) / ((d[n] / m + n / x) * xi - xi_before)
        b = ((m * d[n] + n / x) * psi - psi_now) / ((m * d[n] + n / x) * xi - xi_before)
        ext += (2 * n + 1) * (a + b).real
        sca += (2 * n + 1) * (abs(a) ** 2 + abs(b) ** 2)
        psi_before, psi_now = psi_now, psi
        chi_before, chi_now = chi_now, chi
    return 2 * ext / x ** 2, 2 * sca / x ** 2


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("material", help="a TOML file whose first [[material]] has eps_inf and its poles")
    parser.add_argument("--radius", type=float, required=True, help="the sphere's radius (m)")
    parser.add_argument("--lmin", type=float, required=True, help="the shortest vacuum wavelength (m)")
    parser.add_argument("--lmax", type=float, required=True, help="the longest vacuum wavelength (m)")
    parser.add_argument("--step", type=float, default=0, help="the table's wavelength step (m); 20 rows by default")
    args = parser.parse_args(argv)
    try:
        with open(args.material, "rb") as f:
            material = tomllib.load(f)["material"][0]
    except (OSError, tomllib.TOMLDecodeError, KeyError, IndexError) as error:
        sys.exit("mie_sphere.py: %s: no [[material]] table read (%s); write one with dgatd materials --toml NAME"
                 % (args.material, error))
    if not (0 < args.radius and 0 < args.lmin < args.lmax):
        sys.exit("mie_sphere.py: give a positive --radius and 0 < --lmin < --lmax")
    step = args.step if args.step > 0 else (args.lmax - args.lmin) / 20
    area = math.pi * args.radius ** 2

    def at(wavelength):
        eps = complex(materials.permittivity(material, materials.C0 / wavelength))
        return (eps, *efficiencies(2 * math.pi * args.radius / wavelength, eps))

    print("%9s %18s %13s %13s %9s %9s" % ("lambda nm", "eps", "sca (m^2)", "ext (m^2)", "Q_sca", "Q_ext"))
    for wavelength in np.arange(args.lmin, args.lmax + 0.5 * step, step):
        eps, q_ext, q_sca = at(wavelength)
        print("%9.2f %8.4f%+8.4fj %13.5g %13.5g %9.4f %9.4f"
              % (wavelength * 1e9, eps.real, eps.imag, q_sca * area, q_ext * area, q_sca, q_ext))
    # The largest of 2,001 wavelengths, then the maximum between its neighbours to 1e-7 of it.
    grid = np.linspace(args.lmin, args.lmax, 2001)
    table = np.array([at(wavelength)[1:] for wavelength in grid])
    for name, column in (("scattering", 1), ("extinction", 0)):
        k = int(np.argmax(table[:, column]))
        if k in (0, len(grid) - 1):
            print("%s peaks at %.2f nm, at the band's edge" % (name, grid[k] * 1e9))
            continue
        peak = minimize_scalar(lambda wavelength: -at(wavelength)[1 + column], bounds=(grid[k - 1], grid[k + 1]),
                               method="bounded", options={"xatol": 1e-7 * grid[k]})
        print("%s peaks at %.2f nm" % (name, peak.x * 1e9))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
