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
