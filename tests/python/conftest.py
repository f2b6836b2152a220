"""The Python package's tests, run by ctest (label python) with PYTHONPATH at the build's python/
folder and DGATD_EXECUTABLE, DGATD_SOURCE_DIR and DGATD_RUN_ERRORS_TEST set."""

import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

import dgatd

EXECUTABLE = os.environ.get("DGATD_EXECUTABLE", "dgatd")
SOURCE_DIR = Path(os.environ.get("DGATD_SOURCE_DIR", Path(__file__).resolve().parents[2]))


def run_cli(*arguments, cwd=None):
    """`dgatd ARGUMENTS...`: (exit status, stdout, stderr)."""
    done = subprocess.run([EXECUTABLE, *map(str, arguments)], cwd=cwd, capture_output=True, text=True, check=False)
    return done.returncode, done.stdout, done.stderr


def shortened(config_path, steps, directory):
    """The configuration at config_path with [time] cut to `steps` steps, its mesh file made
    absolute and a generated mesh made by Gmsh's reproducible mesher (its default, HXT, meshes a
    little differently on each run), written into directory (what both front ends then run)."""
    config_path = Path(config_path)
    text = config_path.read_text()
    generated = re.search(r"(?m)^generate\s*=", text) and not re.search(r"(?m)^reproducible\s*=\s*true", text)
    lines, table = [], ""
    for line in text.splitlines():
        header = re.match(r"^\s*\[\[?\s*([A-Za-z_]+)", line)
        if header:
            table = header.group(1)
            if table == "mesh" and generated:
                lines += [line, "reproducible = true"]
                continue
        key = re.match(r"^\s*([A-Za-z_]+)\s*=\s*(.*)$", line)
        if table == "time" and key and key.group(1) in ("t_end", "steps"):
            line = f"steps = {steps}"
        elif table == "mesh" and key and key.group(1) == "file":
            name = re.match(r'^"([^"]*)"', key.group(2)).group(1)
            line = f'file = "{(config_path.parent / name).resolve()}"'
        lines.append(line)
    out = Path(directory) / config_path.name
    out.write_text("\n".join(lines) + "\n")
    return out


def assert_same_series(a, b):
    """The probes, energy and ports of two output files, bit for bit."""
    ra, rb = dgatd.load(a), dgatd.load(b)
    assert ra.probe_names == rb.probe_names
    for name in ra.probe_names:
        pa, pb = ra.probe(name), rb.probe(name)
        assert np.array_equal(pa.time, pb.time), name
        assert np.array_equal(pa.E, pb.E), name
        assert np.array_equal(pa.H, pb.H), name
    ea, eb = ra.energy, rb.energy
    assert np.array_equal(ea["time"], eb["time"])
    assert np.array_equal(ea["energy"], eb["energy"])
    pa, pb = ra.ports, rb.ports
    assert pa.keys() == pb.keys()
    for name in pa:
        for series in ("incident", "voltage", "current"):
            assert np.array_equal(getattr(pa[name], series), getattr(pb[name], series)), (name, series)


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path
