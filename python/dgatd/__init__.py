"""dgatd from Python: describe a simulation with the tables of its TOML configuration, run it (the
time loop stays in C++, without the GIL) and read its results as numpy arrays.

    import dgatd
    sim = dgatd.Simulation.from_toml("inputs/cylinder_resonator.toml")
    sim.run()
    print(sim.results.probe("off_axis").spectrum("Ez", fmin=80e6, fmax=330e6).peaks)

Configuration errors raise dgatd.Error with the message `dgatd run` prints. Kokkos starts at the
first simulation (or dgatd.initialize(threads=..., device=...)) and stops when Python exits.
docs/user/python.md is the guide.
"""

import atexit
import copy
import math
import os
import sys
import time as _time

from . import _dgatd, _toml, materials, mesh
from .results import Results, Spectrum, load, spectrum

__version__ = _dgatd.__version__
Error = _dgatd.Error
DgatdError = Error

__all__ = ["Error", "DgatdError", "Simulation", "Results", "Spectrum", "load", "spectrum", "mesh", "materials",
           "initialize", "backend"]

# Python names of the tables that appear once per item ([[name]] in TOML): either form is accepted.
_PLURALS = {"materials": "material", "pmls": "pml", "sources": "source", "probes": "probe", "farfields": "farfield",
            "lumped_elements": "lumped", "current_densities": "current_density",
            "surface_currents": "surface_current"}


def initialize(threads=None, device=None):
    """Start Kokkos with this many host threads (default: OMP_NUM_THREADS, else all cores) or on this
    GPU; once per process, before the first simulation."""
    _dgatd.initialize(threads, device)


def backend():
    """The execution spaces of this build and the one simulations run on."""
    return _dgatd.backend()


atexit.register(_dgatd.finalize)


def _refuse_ranks():
    """Under mpirun each rank would run the whole problem and write the same file: refused, as the
    command line refuses every command but `dgatd run` there."""
    for size in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE"):
        value = os.environ.get(size, "")
        if value.isdigit() and int(value) > 1:
            raise Error(f"mpirun: started as {value} ranks ({size}={value}), but a dgatd.Simulation runs in one "
                        "process: each rank would run the whole problem (fix: run Python as one process, or write "
                        "the configuration with sim.to_toml(PATH) and run mpirun -n N dgatd run PATH)")


class _Progress:
    """A line redrawn in place: stderr on a terminal, the cell's output in a notebook."""

    def __init__(self, total, first, dt):
        notebook = "ipykernel" in sys.modules
        self.stream = sys.stdout if notebook else sys.stderr
        self.total, self.first, self.dt = total, first, dt
        self.start = _time.monotonic()
        self.drawn = False

    def update(self, step):
        elapsed = _time.monotonic() - self.start
        rate = (step - self.first) / elapsed if elapsed > 0 else 0.0
        left = (self.total - step) / rate if rate > 0 else float("nan")
        share = 100.0 * step / self.total if self.total else 100.0
        self.stream.write(f"\r  step {step} of {self.total} ({share:5.1f} %), t = {step * self.dt:.4g} s, "
                          f"{rate:.0f} steps/s, {left:.0f} s left ")
        self.stream.flush()
        self.drawn = True

    def finish(self):
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()


class Simulation:
    """A simulation described by the tables of a dgatd configuration.

    Each keyword is a table of the configuration reference (docs/user/configuration.md): a dict for
    a [table] (mesh, time, boundary, output, solver), a list of dicts for tables given once per item
    ([[material]], [[source]], ...; `materials=`, `sources=`, `probes=`, ... are accepted too).
    Relative paths in them are from base_dir (default: the working directory). The configuration is
    checked when the simulation is made, by the checks `dgatd run` makes, raising dgatd.Error.

    output_file overrides [output] file (as `dgatd run -o`); restart continues from a checkpoint
    (as `dgatd run --restart`).
    """

    def __init__(self, mesh=None, time=None, *, base_dir=None, name="<python>", output_file=None, restart=None,
                 report=True, **tables):
        given = {"mesh": mesh, "time": time}
        for key, table in tables.items():
            given[_PLURALS.get(key, key)] = table
        self._tables = {k: copy.deepcopy(v) for k, v in given.items() if v is not None}
        self._setup(_toml.dumps(self._tables), name, os.fspath(base_dir) if base_dir else os.getcwd(), output_file,
                    restart, report)

    def _setup(self, text, name, base_dir, output_file, restart, report):
        self._text, self._name, self._base_dir = text, name, base_dir
        self._output_file = "" if output_file is None else os.fspath(output_file)
        self._restart = "" if restart is None else os.fspath(restart)
        self._report = report
        self._run = None
        _refuse_ranks()
        _dgatd.check_config(text, name, base_dir)

    @classmethod
    def from_toml(cls, source, *, output_file=None, restart=None, report=True):
        """From a configuration file (a path) or its text (a string with a newline or a [table])."""
        self = cls.__new__(cls)
        if isinstance(source, str) and ("\n" in source or source.lstrip().startswith("[")):
            text, name, base_dir = source, "<string>", os.getcwd()
        else:
            loaded = _dgatd.load_config(os.fspath(source))
            text, name, base_dir = loaded["text"], loaded["name"], loaded["base_dir"]
        self._tables = None
        self._setup(text, name, base_dir, output_file, restart, report)
        return self

    def to_toml(self, path=None):
        """The configuration `dgatd run` would run; written to path when given."""
        if path is not None:
            with open(path, "w", encoding="utf-8") as out:
                out.write(self._text)
        return self._text

    @property
    def tables(self):
        """The configuration as {table: dict or list of dicts} (a copy)."""
        if self._tables is None:
            import tomllib  # noqa: PLC0415 (Python 3.11)

            self._tables = tomllib.loads(self._text)
        return copy.deepcopy(self._tables)

    def replace(self, **changes):
        """A new simulation with tables changed: a dict is merged into the table of that name, a list
        replaces it, None removes it."""
        tables = self.tables
        for key, table in changes.items():
            key = _PLURALS.get(key, key)
            if table is None:
                tables.pop(key, None)
            elif isinstance(table, dict) and isinstance(tables.get(key), dict):
                tables[key].update(table)
            else:
                tables[key] = table
        return Simulation(base_dir=self._base_dir, output_file=self._output_file or None,
                          report=self._report, **tables)

    def _started(self):
        if self._run is None:
            self._run = _dgatd.Run(self._text, self._name, self._base_dir, self._output_file, self._restart,
                                   self._report)
        return self._run

    def setup(self):
        """Builds everything up to the first step (the mesh, operators, dt); run() does it when needed."""
        self._started()
        return self

    @property
    def plan(self):
        """dict dt and dt_max (s), steps (to the configured end), output (the file), tets."""
        return self._started().plan()

    @property
    def step(self):
        """Steps taken so far."""
        return self._started().steps_taken()

    @property
    def time(self):
        """The time reached, s."""
        return self.step * self.plan["dt"]

    def _print_report(self):
        text = self._run.take_report()
        if text:
            sys.stdout.write(text)
            sys.stdout.flush()

    def run(self, until=None, steps=None, progress=None):
        """Steps to time `until` (s), or `steps` more steps, or to the configured end; call again to go
        on. Returns a dict: complete, ended (the output closed), steps, output, times.

        Ctrl-C stops the run as `dgatd run` does: a checkpoint, the output closed as incomplete."""
        if until is not None and steps is not None:
            raise ValueError("give until or steps, not both")
        run = self._started()
        plan = run.plan()
        first = run.steps_taken()
        if steps is not None:
            if steps < 0:
                raise ValueError(f"steps = {steps} must not be negative")
            target = first + int(steps)
        elif until is not None:
            target = math.ceil(until / plan["dt"] - 1e-9)
        else:
            target = plan["steps"]
        target = min(target, plan["steps"])
        if progress is None:
            progress = self._report and (sys.stderr.isatty() or "ipykernel" in sys.modules)
        bar = _Progress(plan["steps"], first, plan["dt"]) if progress else None
        # Pieces of about a quarter second: the progress and Ctrl-C are seen between them.
        piece, step = 8, first
        result = None
        try:
            while result is None or (step < target and not result["ended"]):
                started = _time.monotonic()
                result = run.advance(min(step + piece, target))
                taken, step = result["steps"] - step, result["steps"]
                elapsed = _time.monotonic() - started
                if taken == piece:
                    piece = max(1, min(4 * piece, int(piece * 0.25 / max(elapsed, 1e-6))))
                if bar:
                    bar.update(step)
                if step >= target:
                    break
        except KeyboardInterrupt:
            if bar:
                bar.finish()
            stopped = run.stop()
            self._print_report()
            checkpoint = stopped["checkpoint"]
            sys.stderr.write(f"dgatd: interrupted after {stopped['steps']} of {plan['steps']} steps; "
                             f"{plan['output']} holds the results so far"
                             + (f", continue with restart={checkpoint!r}\n" if checkpoint else "\n"))
            raise
        if bar:
            bar.finish()
        self._print_report()
        return result

    def stop(self):
        """Ends a paused run before its end: a checkpoint to continue from, the output closed."""
        if self._run is None:
            return None
        result = self._run.stop()
        self._print_report()
        return result

    def close(self):
        """Closes the output (a paused run as stop() would) and frees the fields."""
        if self._run is not None:
            self._run.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def output_file(self):
        return self.plan["output"]

    @property
    def results(self):
        """The run's output, read as it stands: every step taken so far, complete once run() has
        reached the end (while paused, its .partial file)."""
        return Results(self._started().readable_output())

    def __repr__(self):
        state = "not set up" if self._run is None else f"step {self.step}"
        return f"Simulation({self._name}, {state})"
