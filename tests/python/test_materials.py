"""dgatd.materials (issue 49, acceptance 4): the fitter recovers known models from their own samples,
every fit it writes is passive and `dgatd run` takes it, and tables are read in both conventions."""

import math

import numpy as np
import pytest

from dgatd import materials

from conftest import run_cli

TWO_PI = 2 * math.pi


def test_the_fit_recovers_a_known_three_pole_model():
    known = {"eps_inf": 2.2, "pole": [
        {"kind": "debye", "delta_eps": 3.0, "tau": 1 / (TWO_PI * 0.4e9)},
        {"kind": "lorentz", "delta_eps": 0.8, "omega_0": TWO_PI * 3e9, "delta": TWO_PI * 0.3e9},
        {"kind": "lorentz", "delta_eps": 0.4, "omega_0": TWO_PI * 7e9, "delta": TWO_PI * 1e9}]}
    f = np.geomspace(0.1e9, 15e9, 300)
    fit = materials.fit(f, materials.permittivity(known, f), poles=3)
    print("three poles: worst relative error %.2e" % fit.worst_error)
    assert fit.worst_error < 1e-3
    assert fit.passive()
    assert fit.eps_inf == pytest.approx(2.2, rel=1e-6)


def test_the_fit_finds_a_metals_pole_at_zero():
    # A Drude-Lorentz metal in the visible and near infrared: the Drude term's pole at s = 0 lies
    # below the band, where relocation alone never reaches it.
    metal = {"eps_inf": 1.0, "pole": [{"kind": "drude", "omega_p": 1.37e16, "gamma": 2.7e13},
                                      {"kind": "lorentz", "delta_eps": 2.0, "omega_0": 6e15, "delta": 5e14}]}
    f = np.geomspace(1e13, 1e15, 200)
    fit = materials.fit(f, materials.permittivity(metal, f), poles=2)
    print("Drude-Lorentz: worst relative error %.2e" % fit.worst_error)
    assert fit.worst_error < 1e-3
    assert fit.passive()


def djordjevic_sarkar(f):
    """A wideband FR-4 (Djordjevic-Sarkar: eps' = 4.2 at 1 GHz falling slowly, loss tangent about
    0.02 over 1e4 to 1e12 rad/s), a model no finite set of poles equals."""
    w = TWO_PI * np.asarray(f)
    w1, w2, strength = 1e4, 1e12, 0.6
    return 3.9 + strength / math.log(w2 / w1) * np.log((w2 + 1j * w) / (w1 + 1j * w))


def test_every_fit_is_passive_and_a_run_takes_it(tmp_path):
    f = np.geomspace(1e7, 2e10, 120)
    data = tmp_path / "fr4.csv"
    noise = 1 + 0.002 * np.random.default_rng(3).standard_normal(len(f))
    eps = djordjevic_sarkar(f) * noise
    with open(data, "w") as stream:
        stream.write("frequency_hz,eps_re,eps_im\n")
        for fk, ek in zip(f, eps):
            stream.write("%.9g,%.9g,%.9g\n" % (fk, ek.real, ek.imag))
    for poles in (1, 2, 3, 4):
        fit = materials.fit(f, eps, poles=poles)
        print("FR-4 with 0.2 %% noise, %d pole pairs: worst relative error %.2e" % (poles, fit.worst_error))
        assert fit.passive()
    # Without the noise three pairs come within 5.5e-4 of the logarithmic model.
    assert materials.fit(f, djordjevic_sarkar(f), poles=3).worst_error < 1e-3
    snippet = tmp_path / "fr4.toml"
    status, _, err = run_cli("fit-material", data, "--poles", 3, "--region", "domain", "-o", snippet,
                             "--png", tmp_path / "fr4.png")
    assert status == 0, err
    assert "passive" in err and (tmp_path / "fr4.png").exists()
    config = tmp_path / "run.toml"
    config.write_text('[mesh]\ngenerate = "box"\nsize = [0.1, 0.1, 0.1]\nh = 0.05\n\n' + snippet.read_text() +
                      '\n[time]\nsteps = 5\n\n[output]\nfile = "out.h5"\nprogress = false\n')
    status, _, err = run_cli("run", config, cwd=tmp_path)
    assert status == 0, err


def test_tables_are_read_in_either_convention(tmp_path):
    optics = tmp_path / "optics.csv"
    optics.write_text("wavelength_nm,n,k\n500,0.05,3.1\n600,0.06,3.9\n700,0.07,4.6\n")
    table = materials.read_table(optics)
    assert table.frequency[0] == pytest.approx(299792458.0 / 700e-9)
    assert table.eps[0] == pytest.approx(complex(0.07, -4.6) ** 2)  # n - jk with e^(+j w t)
    engineering = tmp_path / "engineering.csv"
    engineering.write_text("frequency_ghz,eps_re,eps_im\n1,4.3,-0.08\n2,4.28,-0.085\n")
    assert materials.read_table(engineering).eps[1] == pytest.approx(4.28 - 0.085j)
    mixed = tmp_path / "mixed.csv"
    mixed.write_text("frequency_ghz,eps_re,eps_im\n1,4.3,-0.08\n2,4.28,0.085\n")
    with pytest.raises(ValueError, match="change sign"):
        materials.read_table(mixed)


def test_a_bad_table_is_one_line_and_a_failure(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("time_s,eps_re,eps_im\n1,2,3\n2,3,4\n")
    status, out, err = run_cli("fit-material", bad)
    assert status != 0
    assert err.count("\n") == 1 and err.startswith("dgatd: error: ") and "frequency_<unit>" in err
    assert out == ""
