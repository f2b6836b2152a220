"""Dispersive materials for dgatd: evaluate a `[[material.pole]]` model and fit one to tabulated data.

    from dgatd import materials
    data = materials.read_table("silver.csv")          # frequency or wavelength, eps or n, k
    fit = materials.fit(data.frequency, data.eps, poles=4, fmin=1e14, fmax=1e15)
    print(fit.worst_error)                             # max |eps_fit - eps| / |eps| over the band
    print(fit.to_toml("particle"))                     # a [[material]] with its [[material.pole]] tables

Convention: e^(+j w t), as dgatd's runs, `dgatd sparams` and `dgatd farfield` take it, so a lossy
medium has Im eps < 0 (read_table converts data written the other way). The fit is vector fitting
(Gustavsen and Semlyen 1999, with relaxation) of eps(w) - eps_inf by complex-conjugate pole pairs,
then the residues and eps_inf refitted by least squares under the constraint Im eps(w) <= 0 at the
frequencies dgatd's own passivity check samples (four decades around the poles), so that every fit
this module writes is accepted by `dgatd run`. This file imports nothing of the compiled package, so
scripts/fit_material.py (`dgatd fit-material`) runs it without a build.
"""

import csv
import math

import numpy as np

__all__ = ["permittivity", "susceptibility", "read_table", "Table", "fit", "Fit", "passivity_grid"]

C0 = 299792458.0


def susceptibility(pole, w):
    """chi(w) of one pole, as a [[material.pole]] table (a dict) writes it; w in rad/s (array or scalar)."""
    w = np.asarray(w, dtype=float)
    kind = pole["kind"]
    if kind == "debye":
        return pole["delta_eps"] / (1 + 1j * w * pole["tau"])
    if kind == "drude":
        return -pole["omega_p"] ** 2 / (w * w - 1j * w * pole["gamma"])
    if kind == "lorentz":
        w0 = pole["omega_0"]
        return pole["delta_eps"] * w0 * w0 / (w0 * w0 - w * w + 2j * w * pole["delta"])
    if kind == "pole_residue":
        a = complex(*pole["a"])
        c = complex(*pole["c"])
        if a.imag == 0 and c.imag == 0:
            return 2 * c / (1j * w - a)
        return c / (1j * w - a) + np.conj(c) / (1j * w - np.conj(a))
    raise ValueError("unknown pole kind %r" % kind)


def permittivity(material, f):
    """eps(f) of a [[material]] table (a dict with eps_inf or eps_r and its "pole" list), f in Hz."""
    if "material" in material:
        raise ValueError("the library's material %r: write its poles out with dgatd materials --toml %s"
                         % (material["material"], material["material"]))
    w = 2 * math.pi * np.asarray(f, dtype=float)
    eps = material.get("eps_inf", material.get("eps_r", 1.0)) + 0j * w
    for pole in material.get("pole", []):
        eps = eps + susceptibility(pole, w)
    return eps


def passivity_grid(poles):
    """The angular frequencies dgatd's configuration checks a pole-residue model on: 4,001 points,
    logarithmic, from 1e-4 times the slowest pole's rate to 1e4 times the fastest."""
    rates = [abs(complex(*p["a"])) for p in poles if abs(complex(*p["a"])) > 0]
    if not rates:
        return np.array([])
    return np.exp(np.linspace(math.log(min(rates) * 1e-4), math.log(max(rates) * 1e4), 4001))


class Table:
    """Tabulated permittivity: frequency (Hz, ascending) and eps (complex, e^(+j w t))."""

    def __init__(self, frequency, eps):
        order = np.argsort(frequency)
        self.frequency = np.asarray(frequency, dtype=float)[order]
        self.eps = np.asarray(eps, dtype=complex)[order]


_LENGTH_UNITS = {"m": 1.0, "um": 1e-6, "µm": 1e-6, "micron": 1e-6, "nm": 1e-9, "mm": 1e-3}
_FREQUENCY_UNITS = {"hz": 1.0, "khz": 1e3, "mhz": 1e6, "ghz": 1e9, "thz": 1e12}


def read_table(path):
    """A CSV file with a header row: a first column `frequency_<unit>` (Hz, kHz, MHz, GHz, THz) or
    `wavelength_<unit>` (m, mm, um, nm), then either `eps_re, eps_im` or `n, k`. Losses may be
    written with either sign (n + ik of optics, or eps' - j eps''): a passive table's losses all have
    one sign, which is read as loss. Raises ValueError naming the file and the row."""
    with open(path, newline="") as stream:
        rows = [row for row in csv.reader(stream) if row and not row[0].lstrip().startswith("#")]
    if len(rows) < 3:
        raise ValueError("%s: needs a header row and at least two rows of data" % path)
    header = [h.strip().lower() for h in rows[0]]
    axis, _, unit = header[0].partition("_")
    if axis not in ("frequency", "wavelength"):
        raise ValueError("%s: the first column must be frequency_<unit> or wavelength_<unit>, not %r" % (path, header[0]))
    units = _FREQUENCY_UNITS if axis == "frequency" else _LENGTH_UNITS
    if unit not in units:
        raise ValueError("%s: unknown unit %r in %r (known: %s)" % (path, unit, header[0], ", ".join(units)))
    if header[1:3] not in (["eps_re", "eps_im"], ["n", "k"]):
        raise ValueError("%s: the columns after the first must be eps_re, eps_im or n, k, not %s" % (path, header[1:3]))
    values = []
    for number, row in enumerate(rows[1:], start=2):
        try:
            values.append([float(x) for x in row[:3]])
        except (ValueError, IndexError):
            raise ValueError("%s: row %d holds %r, not three numbers" % (path, number, row)) from None
    values = np.array(values)
    x = values[:, 0] * units[unit]
    frequency = x if axis == "frequency" else C0 / x
    if header[1] == "eps_re":
        real, loss = values[:, 1], values[:, 2]
    else:
        n, k = values[:, 1], values[:, 2]
        real, loss = n * n - k * k, 2 * n * k
    if np.any(loss > 0) and np.any(loss < 0):
        raise ValueError("%s: the losses (eps_im or k) change sign: a passive material's do not" % path)
    return Table(frequency, real - 1j * np.abs(loss))


class Fit:
    """A fitted model: eps_inf and pole-residue pairs (a, c) in rad/s, the worst relative error over
    the fitted band, and whether dgatd's passivity check accepts it."""

    def __init__(self, eps_inf, poles, residues, frequency, eps):
        self.eps_inf = float(eps_inf)
        self.poles = [complex(a) for a in poles]
        self.residues = [complex(c) for c in residues]
        self.frequency = frequency
        self.data = eps
        model = self.permittivity(frequency)
        self.worst_error = float(np.max(np.abs(model - eps) / np.abs(eps)))

    def order(self):
        """The model's poles in words: complex pairs and real poles, as the fit chose them."""
        real = sum(1 for a in self.poles if a.imag == 0)
        parts = []
        if len(self.poles) > real:
            parts.append("%d pole pair%s" % (len(self.poles) - real, "" if len(self.poles) - real == 1 else "s"))
        if real:
            parts.append("%d real pole%s" % (real, "" if real == 1 else "s"))
        return " and ".join(parts)

    def pole_tables(self):
        """The [[material.pole]] tables, as dicts."""
        return [{"kind": "pole_residue", "a": [a.real, a.imag], "c": [c.real, c.imag]}
                for a, c in zip(self.poles, self.residues)]

    def material(self, region):
        return {"region": region, "eps_inf": self.eps_inf, "pole": self.pole_tables()}

    def permittivity(self, f):
        return permittivity(self.material(""), f)

    def passive(self):
        """Im eps(w) <= 0 on dgatd's passivity grid, to its tolerance (1e-9 of max(1, |chi|))."""
        w = passivity_grid(self.pole_tables())
        chi = permittivity(self.material(""), w / (2 * math.pi)) - self.eps_inf
        return bool(np.all(chi.imag <= 1e-9 * np.maximum(1.0, np.abs(chi))))

    def to_toml(self, region):
        lines = ["# fitted by dgatd fit-material: %s, worst relative error %.2e over %.4g-%.4g Hz, passive"
                 % (self.order(), self.worst_error, self.frequency[0], self.frequency[-1]),
                 "[[material]]", 'region = "%s"' % region, "eps_inf = %.10g" % self.eps_inf]
        for pole in self.pole_tables():
            lines += ["", "[[material.pole]]", 'kind = "pole_residue"',
                      "a = [%.10g, %.10g]" % tuple(pole["a"]), "c = [%.10g, %.10g]" % tuple(pole["c"])]
        return "\n".join(lines) + "\n"

    def plot(self, png, title=""):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        f = np.geomspace(self.frequency[0], self.frequency[-1], 400)
        model = self.permittivity(f)
        figure, axes = plt.subplots(figsize=(7, 4.5))
        axes.plot(self.frequency, self.data.real, "o", ms=3, color="C0", label="data Re eps")
        axes.plot(self.frequency, -self.data.imag, "o", ms=3, color="C1", label="data -Im eps")
        axes.plot(f, model.real, "-", color="C0", label="fit Re eps")
        axes.plot(f, -model.imag, "-", color="C1", label="fit -Im eps")
        axes.set_xscale("log")
        axes.set_xlabel("frequency (Hz)")
        axes.set_title(title or "%s, worst error %.1e" % (self.order(), self.worst_error))
        axes.legend()
        figure.tight_layout()
        figure.savefig(png, dpi=120)
        plt.close(figure)


def _basis(s, poles):
    """Columns of the real basis of sum_i c_i / (s - a_i): a real pole's response to c = 1 (counted
    twice over, as a pair of real a and real c writes it: 2 c / (s - a)); a complex pole's, with its
    conjugate, to c = 1 and c = j."""
    columns = []
    for a in poles:
        if a.imag == 0:
            columns.append(2 / (s - a))
        else:
            columns += [1 / (s - a) + 1 / (s - np.conj(a)), 1j / (s - a) - 1j / (s - np.conj(a))]
    return np.array(columns).T


def _stacked(matrix, vector):
    return np.vstack([matrix.real, matrix.imag]), np.concatenate([vector.real, vector.imag])


def _relocate(s, eps, poles, weight, linear=False):
    """One vector-fitting iteration: the zeros of sigma(s) = 1 + sum c~ basis, the new poles. With
    linear, the fitted function may grow as e s besides its constant d."""
    phi = _basis(s, poles)
    n = phi.shape[1]
    # sigma(s) eps(s) = sum c basis + d (+ e s)  and  sigma(s) = 1 + sum c~ basis
    terms = [phi, np.ones((len(s), 1))] + ([s[:, None]] if linear else [])
    a = np.hstack(terms + [-eps[:, None] * phi]) * weight[:, None]
    real, right = _stacked(a, eps * weight)
    column = np.linalg.norm(real, axis=0)  # the columns span thirty decades at optical rates
    sigma = (np.linalg.lstsq(real / column, right, rcond=None)[0] / column)[n + 1 + int(linear):]
    # The zeros of sigma: eigenvalues of A - b c~^T, A and b the basis's real state form.
    state = np.zeros((n, n))
    b = np.zeros(n)
    k = 0
    for pole in poles:
        if pole.imag == 0:
            state[k, k], b[k] = pole.real, 2
            k += 1
        else:
            state[k:k + 2, k:k + 2] = [[pole.real, pole.imag], [-pole.imag, pole.real]]
            b[k] = 2
            k += 2
    zeros = np.linalg.eigvals(state - np.outer(b, sigma))
    # Unstable zeros are mirrored into the left half-plane; a pair keeps its member above the axis.
    moved = []
    for z in zeros:
        if abs(z.imag) <= 1e-12 * abs(z):
            moved.append(complex(-abs(z.real), 0))
        elif z.imag > 0:
            moved.append(complex(-abs(z.real), z.imag))
    return moved


def _residues(s, eps, poles, weight, check, eps_inf_min):
    """eps_inf and the residues by least squares, Im eps <= 0 at the angular frequencies check. The
    unknowns are scaled to columns of unit norm (residues run to 1e18 rad/s for a metal's pole at 0)."""
    from scipy.optimize import minimize

    phi = _basis(s, poles)
    a = np.hstack([np.ones((len(s), 1)), phi]) * weight[:, None]
    real, right = _stacked(a, eps * weight)
    column = np.linalg.norm(real, axis=0)
    real = real / column
    loss = _basis(1j * check, poles).imag / column[1:]  # Im chi at the check points, per scaled unknown
    loss = loss / np.maximum(1.0, np.linalg.norm(loss, axis=1))[:, None]
    free = np.linalg.lstsq(real, right, rcond=None)[0]
    if np.all(loss @ free[1:] <= 0) and free[0] / column[0] >= eps_inf_min:
        return free / column
    scale = np.linalg.norm(right)
    constraints = [{"type": "ineq", "fun": lambda x: -(loss @ x[1:]),
                    "jac": lambda x: np.hstack([np.zeros((len(check), 1)), -loss])},
                   {"type": "ineq", "fun": lambda x: np.array([x[0] / column[0] - eps_inf_min]),
                    "jac": lambda x: np.eye(1, len(x)) / column[0]}]
    result = minimize(lambda x: np.sum((real @ x - right) ** 2) / scale ** 2, free,
                      jac=lambda x: 2 * real.T @ (real @ x - right) / scale ** 2, constraints=constraints,
                      method="SLSQP", options={"maxiter": 1000, "ftol": 1e-15})
    return result.x / column


def fit(frequency, eps, poles=3, fmin=None, fmax=None, iterations=30, eps_inf_min=1.0):
    """A passive model of order 2 `poles` (that many complex pole pairs, or two real poles in place of
    a pair where the data ask for them) and eps_inf >= eps_inf_min fitted to eps at frequency (Hz)
    between fmin and fmax (default: all of it). Returns a Fit; raises ValueError where the data or the
    band cannot be fitted."""
    frequency = np.asarray(frequency, dtype=float)
    eps = np.asarray(eps, dtype=complex)
    keep = np.ones(len(frequency), dtype=bool)
    if fmin is not None:
        keep &= frequency >= fmin
    if fmax is not None:
        keep &= frequency <= fmax
    if keep.sum() < 2 * poles + 1:
        raise ValueError("%d samples in the band, fewer than the %d a fit of %d pole pairs needs"
                         % (keep.sum(), 2 * poles + 1, poles))
    frequency, eps = frequency[keep], eps[keep]
    w = 2 * math.pi * frequency
    s = 1j * w
    weight = 1 / np.abs(eps)  # relative error
    # Starting poles: weakly damped pairs spread logarithmically over the band; and, for data shaped
    # by relaxation or free carriers (Debye, Drude), the lowest pair replaced by two real poles at
    # and below the band's bottom. The better of the two fits is kept.
    # A conductor's free carriers put a pole at s = 0 (Drude: omega_p^2 / (s (s + gamma))), which
    # relocation approaches only slowly: the third start fits s eps(s) = eps_inf s + d + sum c' / (s - a)
    # instead, whose poles are the others, and adds the one at 0.
    pairs = [complex(-b / 100, b) for b in np.geomspace(w[0], w[-1], poles)]
    relaxing = [complex(-w[0] / 10, 0), complex(-w[0], 0)] + pairs[1:]
    fits = [_fit_from(s, eps, weight, start, iterations, eps_inf_min, frequency) for start in (pairs, relaxing)]
    if poles > 1:
        conducting = _relocated(s, s * eps, weight, pairs[1:] + [complex(-w[0], 0)], iterations, True)
        fits.append(_fit_from(s, eps, weight, [complex(0, 0)] + conducting, 0, eps_inf_min, frequency))
    return min(fits, key=lambda candidate: candidate.worst_error)


def _relocated(s, values, weight, start, iterations, linear=False):
    current = start
    floor = abs(s[0].imag)
    for _ in range(iterations):
        moved = sorted(_relocate(s, values, current, weight, linear), key=abs)
        if len(moved) == 0:
            break
        change = max(abs(m - c) / max(abs(c), floor) for m, c in zip(moved, sorted(current, key=abs)))
        current = moved
        if change < 1e-10:
            break
    return current


def _fit_from(s, eps, weight, start, iterations, eps_inf_min, frequency):
    current = _relocated(s, eps, weight, start, iterations)
    check = passivity_grid([{"a": [a.real, a.imag]} for a in current])
    coefficients = _residues(s, eps, current, weight, check, eps_inf_min)
    residues, k = [], 1
    for a in current:
        if a.imag == 0:
            residues.append(complex(coefficients[k], 0))
            k += 1
        else:
            residues.append(complex(coefficients[k], coefficients[k + 1]))
            k += 2
    return Fit(coefficients[0], current, residues, frequency, eps)


def main(argv=None):
    """dgatd fit-material DATA.csv [--poles N] [--fmin F] [--fmax F] [--region NAME] [-o FILE] [--png FILE]"""
    import argparse
    import sys

    parser = argparse.ArgumentParser(prog="dgatd fit-material",
                                     description="Fit a passive pole-residue model to tabulated permittivity "
                                                 "(python/dgatd/materials.py has the method).")
    parser.add_argument("data", help="CSV: frequency_<unit> or wavelength_<unit>, then eps_re, eps_im or n, k")
    parser.add_argument("--poles", type=int, default=3, help="pole pairs (default 3)")
    parser.add_argument("--fmin", type=float, help="lowest frequency fitted, Hz")
    parser.add_argument("--fmax", type=float, help="highest frequency fitted, Hz")
    parser.add_argument("--region", default="REGION", help="the [[material]]'s region in the snippet")
    parser.add_argument("-o", "--output", help="write the TOML snippet here (default: print it)")
    parser.add_argument("--png", help="plot data against the model here")
    args = parser.parse_args(argv)
    try:
        table = read_table(args.data)
        result = fit(table.frequency, table.eps, poles=args.poles, fmin=args.fmin, fmax=args.fmax)
    except (OSError, ValueError) as error:
        print("dgatd: error: %s" % error, file=sys.stderr)
        return 1
    if not result.passive():
        print("dgatd: error: %s: the fit of %d pole pairs is not passive; try fewer pole pairs or a narrower band"
              % (args.data, args.poles), file=sys.stderr)
        return 1
    snippet = result.to_toml(args.region)
    if args.output:
        with open(args.output, "w") as stream:
            stream.write(snippet)
    else:
        sys.stdout.write(snippet)
    print("fit of %s over %.4g-%.4g Hz: worst relative error %.3e; passive"
          % (result.order(), result.frequency[0], result.frequency[-1], result.worst_error), file=sys.stderr)
    if args.png:
        result.plot(args.png)
        print("wrote %s" % args.png, file=sys.stderr)
    return 0
