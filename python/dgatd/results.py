"""What a run wrote, as numpy arrays with their axes and units: dgatd.load(path) or
Simulation.results. Every reader goes through dgatd's own (the ones `dgatd spectrum`, `sparams` and
`farfield` use), so Python and the command line see the same numbers.
"""

import math

import numpy as np

from . import _dgatd

_COMPONENTS = {"x": 0, "y": 1, "z": 2}


def _pyplot():
    import matplotlib.pyplot as plt  # noqa: PLC0415 (only the plots need matplotlib)

    return plt


def _axes(ax, **subplot):
    if ax is not None:
        return ax
    return _pyplot().figure().add_subplot(**subplot)


class Peaks:
    """Spectral peaks refined between bins: frequency (Hz), magnitude, relative (to the largest)."""

    units = {"frequency": "Hz"}

    def __init__(self, d):
        self.frequency = d["frequency"]
        self.magnitude = d["magnitude"]
        self.relative = d["relative"]

    def __len__(self):
        return len(self.frequency)

    def __repr__(self):
        return "Peaks(" + ", ".join(f"{f / 1e6:.3f} MHz" for f in self.frequency) + ")"


class Spectrum:
    """Magnitude spectrum (Hamming window, zero-padded FFT), as `dgatd spectrum` computes it."""

    units = {"frequency": "Hz", "magnitude": "the signal's units", "resolution": "Hz"}

    def __init__(self, d, label=""):
        self.frequency = d["frequency"]
        self.magnitude = d["magnitude"]
        self.bin_width = d["bin_width"]
        self.resolution = d["resolution"]
        self.peaks = Peaks(d["peaks"])
        self._table = d["table"]
        self.dt = d.get("dt")
        self.label = label

    def table(self):
        """The peaks as `dgatd spectrum` prints them (dgatd's own formatting): number, frequency in
        the unit of the highest peak, relative amplitude."""
        return self._table

    def plot(self, ax=None, peaks=True):
        """Magnitude against frequency (MHz), the peaks marked."""
        ax = _axes(ax)
        ax.semilogy(self.frequency / 1e6, self.magnitude, label=self.label or None)
        if peaks and len(self.peaks):
            ax.plot(self.peaks.frequency / 1e6, self.peaks.magnitude, "v")
            for f, m in zip(self.peaks.frequency, self.peaks.magnitude):
                ax.annotate(f"{f / 1e6:.2f}", (f / 1e6, m), textcoords="offset points", xytext=(0, 6), ha="center")
        ax.set_xlabel("frequency (MHz)")
        ax.set_ylabel("|spectrum|")
        return ax


def spectrum(signal, dt, *, fmin=0.0, fmax=None, padding=8, threshold=1e-2, max_peaks=0):
    """Spectrum and peaks of a signal sampled every dt seconds (the mean is removed first)."""
    signal = np.ascontiguousarray(signal, dtype=float)
    return Spectrum(_dgatd.spectrum(signal.tolist(), float(dt), float(fmin), fmax, padding, threshold, max_peaks))


class Probe:
    """A probe's series: time (s, one row per step), E (V/m) and H (A/m) as steps x 3."""

    units = {"time": "s", "E": "V/m", "H": "A/m", "position": "m"}

    def __init__(self, path, d):
        self._path = path
        self.name = d["name"]
        self.position = d["position"]
        self.time = d["time"]
        self.E = d["E"]
        self.H = d["H"]

    def component(self, which):
        """'Ex', 'Ey', ..., 'Hz' as one array over time."""
        field, axis = which[0].upper(), _COMPONENTS[which[1].lower()]
        return (self.E if field == "E" else self.H)[:, axis]

    def spectrum(self, component="Ez", *, fmin=0.0, fmax=None, padding=8, threshold=1e-2, max_peaks=0):
        """What `dgatd spectrum FILE --probe NAME --field F --component C` prints the peaks of."""
        d = _dgatd.probe_spectrum(self._path, self.name, component[0].upper(), component[1].lower(), float(fmin),
                                  fmax, padding, threshold, max_peaks)
        return Spectrum(d, label=f"{self.name} {component}")

    def plot(self, component="Ez", ax=None):
        ax = _axes(ax)
        ax.plot(self.time * 1e9, self.component(component), label=f"{self.name} {component}")
        ax.set_xlabel("time (ns)")
        ax.set_ylabel(component + (" (V/m)" if component[0].upper() == "E" else " (A/m)"))
        return ax

    def __repr__(self):
        return f"Probe({self.name!r}, {len(self.time)} steps at {tuple(self.position)} m)"


class Port:
    """A port's series at t = m dt: incident (what it launched) and voltage (V); for a lumped port its
    resistance (ohm) and current (A); for a matched port its wave admittance far above cutoff (S) and
    its cutoff (rad/s), zero in files written before they were recorded."""

    units = {"time": "s", "incident": "V", "voltage": "V", "current": "A", "resistance": "ohm",
             "admittance": "S", "cutoff": "rad/s"}

    def __init__(self, d):
        self.name = d["name"]
        self.dt = d["dt"]
        self.incident = d["incident"]
        self.voltage = d["voltage"]
        self.current = d["current"]
        self.resistance = d["resistance"]
        self.admittance = d["admittance"]
        self.cutoff = d["cutoff"]
        self.time = np.arange(len(self.voltage)) * self.dt

    def __repr__(self):
        kind = f"lumped, {self.resistance:g} ohm" if self.resistance else "matched"
        return f"Port({self.name!r}, {kind}, {len(self.voltage)} samples)"


class SParameters:
    """S_k1 against frequency: s[k] is the wave leaving port ports[k] over the one port 0 launched;
    impedance Z_in (ohm) of a driven lumped port."""

    units = {"frequency": "Hz", "s": "1", "impedance": "ohm", "band": "Hz"}

    def __init__(self, d):
        self.ports = d["ports"]
        self.frequency = d["frequency"]
        self.s = d["s"]
        self.band = d["band"]
        self.tail = d["tail"]
        self.resistance = d["resistance"]
        self.impedance = d["impedance"]

    def db(self, k=0):
        return 20 * np.log10(np.maximum(np.abs(self.s[k]), 1e-300))

    def resonance(self):
        """The frequency (Hz) of the deepest |S11| dip."""
        return float(self.frequency[int(np.argmin(np.abs(self.s[0])))])

    def plot(self, ax=None):
        """|S_k1| in dB against frequency (GHz)."""
        ax = _axes(ax)
        for k, port in enumerate(self.ports):
            ax.plot(self.frequency / 1e9, self.db(k), label=f"S{k + 1}1 ({port})")
        ax.set_xlabel("frequency (GHz)")
        ax.set_ylabel("|S| (dB)")
        ax.legend()
        return ax

    def smith(self, ax=None):
        """S11 on a Smith chart (circles of constant resistance and reactance)."""
        ax = _axes(ax)
        t = np.linspace(0, 2 * np.pi, 361)
        ax.plot(np.cos(t), np.sin(t), color="0.6", lw=0.8)
        for r in (0.2, 0.5, 1, 2, 5):
            ax.plot(r / (1 + r) + np.cos(t) / (1 + r), np.sin(t) / (1 + r), color="0.85", lw=0.6)
        for x in (0.2, 0.5, 1, 2, 5):
            for sign in (1, -1):
                z = 1j * sign * x + np.logspace(-3, 3, 400)
                g = (z - 1) / (z + 1)
                ax.plot(g.real, g.imag, color="0.85", lw=0.6)
        ax.plot(self.s[0].real, self.s[0].imag, label=f"S11 ({self.ports[0]})")
        ax.set_aspect("equal")
        ax.set_xlim(-1.05, 1.05)
        ax.set_ylim(-1.05, 1.05)
        ax.axis("off")
        return ax


class FarFieldPattern:
    """The far field of one surface at one frequency (Hz). grid and each of cuts: arrays theta, phi
    (degrees), directivity (linear), rcs (m^2), e_theta and e_phi (r E, V s); gain and realized_gain
    (linear) of the strongest direction when lumped ports feed the run."""

    units = {"frequency": "Hz", "theta": "deg", "phi": "deg", "rcs": "m^2", "e_theta": "V s", "e_phi": "V s"}

    def __init__(self, d):
        self.surface = d["surface"]
        self.frequency = d["frequency"]
        self.radiated = d["radiated"]
        self.flux = d["flux"]
        self.strongest = d["strongest"]
        self.has_rcs = d["has_rcs"]
        self.backscatter = d["backscatter"]
        # m^2, with a plane wave: the total scattering, extinction and absorption cross sections (the
        # last two None for files written before the wave's origin was recorded)
        self.scattering = d["scattering"]
        self.extinction = d["extinction"]
        self.absorption = d["absorption"]
        self.grid = d["grid"]
        self.cut_phis = d["cut_phis"]
        self.cuts = d["cuts"]
        self.accepted = d["accepted"]
        self.available = d["available"]

    @property
    def directivity_dbi(self):
        """The largest directivity, dBi."""
        return 10 * math.log10(self.strongest["directivity"])

    @property
    def gain(self):
        """Strongest intensity over the power the lumped ports accepted (linear); None unfed."""
        if not self.accepted:
            return None
        return self.strongest["directivity"] * self.radiated / self.accepted

    @property
    def realized_gain(self):
        if not self.available:
            return None
        return self.strongest["directivity"] * self.radiated / self.available

    def plot_cuts(self, quantity="directivity", ax=None):
        """Polar cuts (theta through each phi), in dBi or dBsm."""
        ax = _axes(ax, projection="polar")
        for phi, cut in zip(self.cut_phis, self.cuts):
            values = 10 * np.log10(np.maximum(cut[quantity], 1e-30))
            ax.plot(np.radians(cut["theta"]), values, label=f"phi = {phi:g} deg")
        ax.set_theta_zero_location("N")
        ax.set_theta_direction(-1)
        ax.set_title(f"{self.surface}, {self.frequency / 1e9:g} GHz ({'dBsm' if quantity == 'rcs' else 'dBi'})")
        ax.legend(loc="lower left")
        return ax


class Snapshot:
    """E (V/m) and H (A/m) averaged over each tet of the run's mesh at time (s): tets x 3."""

    units = {"time": "s", "E": "V/m", "H": "A/m"}

    def __init__(self, d):
        self.time = d["time"]
        self.E = d["E"]
        self.H = d["H"]


class SurfaceCurrents:
    """A [[surface_current]] record: the surface's faces (corners F x 3 x 3, m; normals F x 3, the
    front's, out of the conductor; areas F, m^2; sides F, 1 or 2) and at each of its frequencies (Hz)
    the Fourier transforms of J_s (nf x F x 3, A s/m) and rho_s (nf x F, C s/m^2), summed over a face's
    sides, with each side's apart (J_s_front, rho_s_front, J_s_back, rho_s_back; zero behind a face on
    the mesh's boundary)."""

    units = {"frequencies": "Hz", "corners": "m", "areas": "m^2", "J_s": "A s/m", "rho_s": "C s/m^2"}

    def __init__(self, d):
        self.name = d["name"]
        self.frequencies = d["frequencies"]
        self.corners = d["corners"]
        self.normals = d["normals"]
        self.areas = d["areas"]
        self.sides = d["sides"]
        t = d["transforms"]
        self.J_s_front, self.rho_s_front = t[:, :, 0:3], t[:, :, 3]
        self.J_s_back, self.rho_s_back = t[:, :, 4:7], t[:, :, 7]
        self.J_s = self.J_s_front + self.J_s_back
        self.rho_s = self.rho_s_front + self.rho_s_back

    @property
    def centroids(self):
        return self.corners.mean(axis=1)

    def __repr__(self):
        return f"SurfaceCurrents({self.name!r}: {len(self.areas)} faces at {list(self.frequencies)} Hz)"


class Results:
    """The output file of a run (HDF5): probes, energy, ports, S-parameters, far fields, surface
    currents, mesh and snapshots, each read when asked for."""

    def __init__(self, path):
        self.path = str(path)
        self.probe_names = _dgatd.probe_names(self.path)

    def probe(self, name):
        return Probe(self.path, _dgatd.probe(self.path, name))

    @property
    def probes(self):
        return {name: self.probe(name) for name in self.probe_names}

    @property
    def energy(self):
        """dict time (s) and energy (J)."""
        return _dgatd.energy(self.path)

    @property
    def ports(self):
        return {d["name"]: Port(d) for d in _dgatd.ports(self.path)}

    def sparameters(self, fmin=0.0, fmax=0.0, points=201):
        """As `dgatd sparams`: fmin = fmax = 0 takes the excitation's band."""
        return SParameters(_dgatd.s_parameters(self.path, float(fmin), float(fmax), int(points)))

    def far_fields(self, theta_step=2.0, phi_step=5.0, cuts=(0.0, 90.0)):
        """{surface: [FarFieldPattern per frequency]}, as `dgatd farfield` (a run without a
        [[farfield]] table raises dgatd.Error)."""
        surfaces = _dgatd.far_fields(self.path, float(theta_step), float(phi_step), [float(c) for c in cuts])
        return {s["name"]: [FarFieldPattern(p) for p in s["patterns"]] for s in surfaces}

    @property
    def surface_currents(self):
        """{name: SurfaceCurrents} of the run's [[surface_current]] items (empty without any)."""
        return {d["name"]: SurfaceCurrents(d) for d in _dgatd.surface_currents(self.path)}

    @property
    def mesh(self):
        """dict points (V x 3, m), tets (T x 4 vertex ids), region (T physical tags)."""
        return _dgatd.mesh(self.path)

    @property
    def snapshot_count(self):
        return _dgatd.snapshot_count(self.path)

    def snapshot(self, index):
        return Snapshot(_dgatd.snapshot(self.path, int(index)))

    def __repr__(self):
        return f"Results({self.path!r}: probes {', '.join(self.probe_names) or 'none'})"


def load(path):
    """The results of a run from its output file."""
    return Results(path)
