"""Every bad-input case of the command line's tests (tests/unit/test_run_errors.cpp) raises
dgatd.Error from Python with the message `dgatd run` prints, and leaves no file behind."""

import os
import re
import subprocess
import tempfile
from pathlib import Path

import pytest
from conftest import run_cli

import dgatd


def _cases():
    lister = os.environ.get("DGATD_RUN_ERRORS_TEST")
    if not lister:
        return []
    with tempfile.TemporaryDirectory() as directory:
        subprocess.run([lister, "--gtest_filter=RunErrors.*"], env={**os.environ, "DGATD_LIST_RUN_ERROR_CASES": directory},
                       check=True, capture_output=True)
        cases = []
        for config in sorted(Path(directory).glob("*.toml")):
            cases.append((config.stem, config.read_text(), config.with_suffix(".expected").read_text()))
        return cases


CASES = _cases()


def test_the_cases_were_listed():
    assert len(CASES) >= 30


def as_meshed(message, config):
    """Gmsh's default mesher (HXT) makes a slightly different mesh on each run, so the numbers a
    message quotes of it (dt_max, a share of the tets) differ between any two runs of the case; of
    such a case the words, the lines and the integers are compared, its decimals are not."""
    if "generate =" in config and "reproducible = true" not in config:
        return re.sub(r"\d+\.\d+(e[+-]?\d+)?", "<decimal>", message)
    return message


@pytest.mark.parametrize("name,config,expected", CASES, ids=[c[0] for c in CASES])
def test_python_raises_what_the_command_line_prints(in_tmp, name, config, expected):
    (in_tmp / "bad.toml").write_text(config)
    status, _, err = run_cli("run", "bad.toml", cwd=in_tmp)
    assert status != 0
    assert err.startswith("dgatd: error: ") and err.count("\n") == 1, err
    message = err[len("dgatd: error: "):].rstrip("\n")
    assert expected in message
    with pytest.raises(dgatd.Error) as raised:
        dgatd.Simulation.from_toml("bad.toml", report=False).run(progress=False)
    assert as_meshed(str(raised.value), config) == as_meshed(message, config)
    assert sorted(os.listdir(in_tmp)) == ["bad.toml"], name


# The command line's other bad-input cases (tests/unit/test_run_errors.cpp), each as Python meets it.
BOX = "[mesh]\ngenerate = \"box\"\nsize = [1, 1, 1]\nh = 0.3\n"
TAIL = "[time]\nsteps = 20\n[output]\nfile = \"out.h5\"\n"


def cli_message(*arguments, cwd):
    status, _, err = run_cli(*arguments, cwd=cwd)
    assert status != 0 and err.startswith("dgatd: error: ") and err.count("\n") == 1, err
    return err[len("dgatd: error: "):].rstrip("\n")


def test_a_folder_for_a_configuration(in_tmp):
    message = cli_message("run", in_tmp, cwd=in_tmp)
    with pytest.raises(dgatd.Error) as raised:
        dgatd.Simulation.from_toml(in_tmp)
    assert str(raised.value) == message


def test_a_run_that_blows_up_stops_with_the_same_line(in_tmp):
    config = BOX + ("[[source]]\nkind = \"dipole\"\nposition = [0.4, 0.45, 0.55]\ndirection = [0, 0, 1]\n"
                    "waveform = \"gaussian\"\nt0 = 1e-9\nsigma = 3e-10\n[time]\nsteps = 100000\ndt = 3e-9\n"
                    "allow_unstable = true\n[output]\nfile = \"out.h5\"\nprogress = false\nwatchdog = 0\n")
    (in_tmp / "unstable.toml").write_text(config)
    message = cli_message("run", "unstable.toml", cwd=in_tmp)
    with pytest.raises(dgatd.Error) as raised:
        dgatd.Simulation.from_toml("unstable.toml", output_file="python.h5", report=False).run(progress=False)
    assert as_meshed(str(raised.value), config) == as_meshed(message, config).replace("out.h5", "python.h5")
    assert os.path.exists("python.h5")  # the steps before it, marked incomplete


def test_results_a_run_does_not_hold(in_tmp):
    (in_tmp / "box.toml").write_text(BOX + TAIL)
    assert run_cli("run", "box.toml", cwd=in_tmp)[0] == 0
    output = str(in_tmp / "out.h5")
    message = cli_message("sparams", output, cwd=in_tmp)
    with pytest.raises(dgatd.Error) as raised:
        dgatd.load(output).sparameters()
    assert str(raised.value) == message
    message = cli_message("farfield", output, cwd=in_tmp)
    with pytest.raises(dgatd.Error) as raised:
        dgatd.load(output).far_fields()
    assert str(raised.value) == message
    missing = str(in_tmp / "missing.h5")
    message = cli_message("sparams", missing, cwd=in_tmp)
    with pytest.raises(dgatd.Error) as raised:
        dgatd.load(missing)
    assert str(raised.value) == message
