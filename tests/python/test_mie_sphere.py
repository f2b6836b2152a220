"""scripts/mie_sphere.py, the Mie series a particle's run is compared with: in the quasi-static
limit it is Rayleigh's dipole, and for a metal-like permittivity of growing magnitude it tends to the
perfectly conducting sphere's series (tests/mie_series.hpp)."""

import math
import os
import pathlib
import sys

import pytest

# The script as its users run it: from scripts/, beside the source_tree.py it imports.
sys.path.insert(0, str(pathlib.Path(os.environ.get("DGATD_SOURCE_DIR", pathlib.Path(__file__).parents[2])) / "scripts"))
import mie_sphere  # noqa: E402


@pytest.mark.parametrize("eps", [4.0, 2.5 - 0.3j, -2.8 - 0.58j])
def test_a_small_sphere_is_rayleighs_dipole(eps):
    # Q_sca = 8/3 x^4 |(eps - 1) / (eps + 2)|^2 and Q_ext = 4 x Im((eps - 1) / (eps + 2)) (conjugated:
    # e^(+j w t)) + Q_sca, up to terms of relative order x^2.
    x = 1e-3
    q_ext, q_sca = mie_sphere.efficiencies(x, eps)
    ratio = (eps - 1) / (eps + 2)
    assert q_sca == pytest.approx(8 / 3 * x ** 4 * abs(ratio) ** 2, rel=1e-4)
    assert q_ext == pytest.approx(-4 * x * ratio.imag + 8 / 3 * x ** 4 * abs(ratio) ** 2, rel=1e-4, abs=1e-15)


def test_a_strongly_negative_permittivity_tends_to_the_perfect_conductor():
    # A metal far below its plasma frequency (eps = -1e8: |m| = 1e4) differs from the perfect
    # conductor's series by terms of order 1 / |m|, the skin depth over the radius.
    x = 1.0
    q_ext, q_sca = mie_sphere.efficiencies(x, complex(-1e8, -1.0))
    conductor = perfect_conductor_scattering(x)
    assert q_sca == pytest.approx(conductor, rel=1e-3)
    assert (q_ext - q_sca) / q_sca < 1e-3


def perfect_conductor_scattering(x):
    """Q_sca of a perfectly conducting sphere: a_n = psi_n'/xi_n', b_n = psi_n/xi_n by upward recurrences."""
    psi = [math.sin(x), math.sin(x) / x - math.cos(x)]
    chi = [math.cos(x), math.cos(x) / x + math.sin(x)]
    total = 0.0
    for n in range(1, 25):
        if n + 1 >= len(psi):
            psi.append((2 * n + 1) / x * psi[n] - psi[n - 1])
            chi.append((2 * n + 1) / x * chi[n] - chi[n - 1])
        xi = complex(psi[n], -chi[n])
        xi_before = complex(psi[n - 1], -chi[n - 1])
        a = (psi[n - 1] - n * psi[n] / x) / (xi_before - n * xi / x)
        b = psi[n] / xi
        total += (2 * n + 1) * (abs(a) ** 2 + abs(b) ** 2)
    return 2 * total / x ** 2
