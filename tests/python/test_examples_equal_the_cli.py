"""Every inputs/ example, cut to a few steps, run from Python records the probes, energy and port
series `dgatd run` records, bit for bit (same configuration file, same thread count)."""

import os
import subprocess

import pytest
from conftest import EXECUTABLE, SOURCE_DIR, assert_same_series, shortened

import dgatd

EXAMPLES = sorted(p.name for p in (SOURCE_DIR / "inputs").glob("*.toml"))


@pytest.mark.parametrize("example", EXAMPLES)
def test_python_run_equals_the_command_line(in_tmp, example):
    config = shortened(SOURCE_DIR / "inputs" / example, 40, in_tmp)
    # Side by side: most of a short run is Gmsh meshing on one thread. The threads' count, not their
    # timing, fixes the results.
    cli = subprocess.Popen([EXECUTABLE, "run", str(config), "-o", str(in_tmp / "cli.h5")], cwd=in_tmp,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    sim = dgatd.Simulation.from_toml(config, output_file=in_tmp / "python.h5", report=False)
    result = sim.run(progress=False)
    assert cli.wait() == 0, cli.stderr.read()
    assert result["complete"]
    assert_same_series(in_tmp / "cli.h5", in_tmp / "python.h5")
    assert os.path.exists(in_tmp / "python.h5")
