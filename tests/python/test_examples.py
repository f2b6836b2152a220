"""The examples under examples/python run as their users run them: the cylinder resonator prints the
peaks `dgatd spectrum` prints for the same run, and the patch sweep's resonance falls as the patch
grows."""

import re
import subprocess
import sys

from conftest import SOURCE_DIR, run_cli, shortened

EXAMPLES = SOURCE_DIR / "examples" / "python"


def python(script, *arguments, cwd):
    done = subprocess.run([sys.executable, str(EXAMPLES / script), *map(str, arguments)], cwd=cwd,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_cylinder_prints_the_peaks_of_the_command_line(in_tmp):
    steps = 3000
    printed = python("cylinder.py", "--steps", steps, "--output", in_tmp / "python.h5", cwd=in_tmp)
    peak_line = r"^\s+\d+\s+[0-9.]+\s+[0-9.e+-]+$"
    python_peaks = re.findall(peak_line, printed, re.M)

    config = shortened(SOURCE_DIR / "inputs" / "cylinder_resonator.toml", steps, in_tmp)
    status, _, err = run_cli("run", config, "-o", in_tmp / "cli.h5", cwd=in_tmp)
    assert status == 0, err
    status, out, err = run_cli("spectrum", in_tmp / "cli.h5", "--probe", "off_axis", "--component", "z", "--fmin",
                               80e6, "--fmax", 330e6, cwd=in_tmp)
    assert status == 0, err
    cli_peaks = re.findall(peak_line, out, re.M)
    assert len(cli_peaks) >= 4
    assert python_peaks == cli_peaks


def test_patch_sweep_resonance_falls_as_the_patch_grows(in_tmp):
    printed = python("patch_sweep.py", "--quick", "--folder", in_tmp, cwd=in_tmp)
    rows = [tuple(map(float, m)) for m in re.findall(r"^\s+([0-9.]+)\s+([0-9.]+)\s+(-?[0-9.]+)$", printed, re.M)]
    assert len(rows) == 5, printed
    lengths = [r[0] for r in rows]
    resonances = [r[1] for r in rows]
    assert lengths == sorted(lengths)
    assert all(b < a for a, b in zip(resonances, resonances[1:])), printed


def test_tune_capacitor_finds_the_circuits_match(in_tmp):
    printed = python("tune_capacitor.py", "--evaluations", 6, "--folder", in_tmp, cwd=in_tmp)
    best = re.search(r"best C = ([0-9.]+) pF after 6 runs, \|S11\(f0\)\| = ([0-9.]+); .* C = ([0-9.]+) pF", printed)
    assert best, printed
    found, s11, circuit = (float(v) for v in best.groups())
    # Six runs narrow the bracket to 0.23 decades of C; the best run so far lies within a few per
    # cent of the circuit's resonance, where the match is deep.
    assert abs(found / circuit - 1) < 0.05, printed
    assert s11 < 0.05, printed
