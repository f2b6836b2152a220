"""dgatd.Simulation: tables and TOML describe the same run, a run in pieces is the run in one go,
stepping leaves the GIL to other threads, Ctrl-C stops with a checkpoint a restart continues, and the
results come back as numpy arrays."""

import math
import os
import signal
import threading
import time
import tomllib

import h5py
import numpy as np
import pytest
from conftest import assert_same_series

import dgatd


def cavity(steps=300, **changes):
    """A small PEC box rung by a dipole, with two probes and the energy."""
    tables = dict(
        mesh=dgatd.mesh.box([1.0, 0.8, 0.6], 0.15, reproducible=True),
        sources=[dict(kind="dipole", position=[0.31, 0.23, 0.17], direction=[0.5, 0.6, 0.62],
                      waveform="modulated_gaussian", frequency=300e6, t0=6e-9, sigma=1e-9)],
        time=dict(steps=steps),
        probes=[dict(name="p", position=[0.63, 0.41, 0.29]), dict(name="q", position=[0.2, 0.6, 0.4])],
        output=dict(file="run.h5", energy_every=7),
    )
    tables.update(changes)
    return tables


def test_tables_and_their_toml_are_one_configuration(in_tmp):
    sim = dgatd.Simulation(**cavity())
    text = sim.to_toml()
    parsed = tomllib.loads(text)
    assert parsed["source"][0]["frequency"] == 300e6
    assert parsed["probe"][1]["name"] == "q"
    assert parsed["mesh"]["size"] == [1.0, 0.8, 0.6]
    assert sim.tables == parsed
    again = dgatd.Simulation.from_toml(text)
    assert again.tables == parsed
    # Doubles go through the text unchanged.
    odd = dgatd.Simulation(**cavity(time=dict(t_end=1 / 3 * 1e-8)))
    assert tomllib.loads(odd.to_toml())["time"]["t_end"] == 1 / 3 * 1e-8


def test_a_bad_table_raises_the_configuration_message(in_tmp):
    with pytest.raises(dgatd.Error, match=r"\[\[material\]\] eps_r = -2 must be positive"):
        dgatd.Simulation(**cavity(materials=[dict(region="domain", eps_r=-2)]))
    assert issubclass(dgatd.Error, RuntimeError)
    with pytest.raises(TypeError):
        dgatd.Simulation(**cavity(time=dict(steps=object())))


def test_a_run_in_pieces_is_the_run_in_one_go(in_tmp):
    whole = dgatd.Simulation(**cavity(), output_file="whole.h5", report=False)
    assert whole.run(progress=False)["complete"]
    pieces = dgatd.Simulation(**cavity(), output_file="pieces.h5", report=False)
    pieces.run(steps=17, progress=False)
    assert pieces.step == 17
    paused = pieces.results
    assert len(paused.probe("p").time) == 17  # a row after each step
    pieces.run(until=100 * pieces.plan["dt"], progress=False)
    assert pieces.step == 100
    result = pieces.run(progress=False)
    assert result["complete"] and result["ended"] and pieces.step == 300
    assert_same_series("whole.h5", "pieces.h5")
    assert pieces.results.path.endswith("pieces.h5")


def test_stepping_leaves_the_gil_to_other_threads(in_tmp):
    # About a second on two idle cores: long enough for a thread's ticks to tell.
    sim = dgatd.Simulation(**cavity(steps=20000), report=False).setup()
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.001)

    counter = threading.Thread(target=count)
    counter.start()
    started = time.monotonic()
    sim.run(progress=False)
    elapsed = time.monotonic() - started
    done.set()
    counter.join()
    during = [t for t in ticks if started <= t <= started + elapsed]
    # A thread that sleeps 1 ms between ticks gets hundreds of them per second unless the run holds
    # the GIL; held for the whole run, it would get a handful (one per piece).
    assert elapsed > 0.2
    assert len(during) > 0.3 * elapsed / 0.001 / 4, (len(during), elapsed)


def test_ctrl_c_stops_with_a_checkpoint_that_a_restart_continues(in_tmp):
    # A run no machine finishes before the Ctrl-C (a minute or more), compared over the steps taken.
    steps = 10**6
    sim = dgatd.Simulation(**cavity(steps=steps), output_file="stopped.h5", report=False).setup()
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        sim.run(progress=False)
    timer.join()
    stopped_at = sim.step
    assert 0 < stopped_at < steps
    assert os.path.exists("stopped.h5") and os.path.exists("stopped.checkpoint.h5")
    assert len(dgatd.load("stopped.h5").probe("p").time) == stopped_at
    sim.close()

    again = dgatd.Simulation(**cavity(steps=steps), output_file="stopped.h5", restart="stopped.checkpoint.h5",
                             report=False)
    assert again.step == stopped_at
    again.run(steps=500, progress=False)
    whole = dgatd.Simulation(**cavity(steps=steps), output_file="whole.h5", report=False)
    whole.run(steps=stopped_at + 500, progress=False)
    assert_same_series(whole.results.path, again.results.path)
    again.close()
    whole.close()


def test_results_as_numpy_with_their_axes(in_tmp):
    sim = dgatd.Simulation(**cavity(steps=600, output=dict(file="run.h5", energy_every=7, snapshot_every=300)),
                           report=False)
    sim.run(progress=False)
    results = sim.results
    probe = results.probe("p")
    assert probe.E.shape == (600, 3) and probe.H.shape == (600, 3)
    assert np.allclose(np.diff(probe.time), sim.plan["dt"])
    assert probe.component("Ey").shape == (600,)
    energy = results.energy
    assert energy["time"].shape == energy["energy"].shape
    assert np.all(energy["energy"] >= 0)
    mesh = results.mesh
    assert mesh["tets"].shape[1] == 4 and mesh["points"].shape[1] == 3
    assert results.snapshot_count == 2  # steps 300 and 600
    snapshot = results.snapshot(1)
    assert snapshot.E.shape == (mesh["tets"].shape[0], 3)
    assert math.isclose(snapshot.time, 600 * sim.plan["dt"], rel_tol=1e-12)
    with pytest.raises(dgatd.Error, match="no snapshot 2"):
        results.snapshot(2)
    with pytest.raises(dgatd.Error, match="no probe 'r'"):
        results.probe("r")


def test_surface_currents_as_numpy(in_tmp):
    """A PEC sphere under a plane wave: the record's faces are the sphere's, their normals point out
    of it, and the transforms are the output's datasets, the sides summed."""
    sim = dgatd.Simulation(
        mesh=dgatd.mesh.sphere(0.1, 0.28, 0.44, 0.05, reproducible=True),
        sources=[dict(kind="plane_wave", region="total", direction=[0, 0, 1], polarization=[1, 0, 0],
                      waveform="modulated_gaussian", frequency=0.7e9, sigma=0.8e-9)],
        surface_currents=[dict(name="skin", surfaces="sphere", frequencies=[0.5e9, 0.9e9])],
        time=dict(steps=200), output=dict(file="run.h5"), report=False)
    sim.run(progress=False)
    skin = sim.results.surface_currents["skin"]
    faces = len(skin.areas)
    assert faces > 100 and skin.corners.shape == (faces, 3, 3) and np.all(skin.sides == 1)
    outward = skin.centroids - 0.22
    assert np.all(np.einsum("ij,ij->i", skin.normals, outward) > 0)
    # The faces are inscribed in the sphere: their centroids lie a little inside it.
    radii = np.linalg.norm(outward, axis=1)
    assert np.all((radii > 0.08) & (radii < 0.1))
    assert skin.J_s.shape == (2, faces, 3) and skin.rho_s.shape == (2, faces)
    assert not np.any(skin.J_s_back) and np.any(skin.J_s)
    with h5py.File("run.h5", "r") as f:
        at = f["surface_currents/skin/transforms/1"]
        assert np.array_equal(skin.J_s[1], at["J_s_re"][:] + 1j * at["J_s_im"][:])
        assert np.array_equal(skin.rho_s[1], at["rho_s_re"][:] + 1j * at["rho_s_im"][:])


def test_spectrum_finds_a_sinusoid_where_it_is():
    dt, f = 1e-10, 312.5e6
    t = np.arange(20000) * dt
    s = dgatd.spectrum(np.sin(2 * np.pi * f * t), dt, fmin=100e6, fmax=600e6)
    assert len(s.peaks) == 1
    assert abs(s.peaks.frequency[0] - f) < 0.05 * s.resolution
    assert abs(s.peaks.magnitude[0] - 1) < 0.05


def test_under_mpirun_a_simulation_is_refused_in_one_line(in_tmp, monkeypatch):
    monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "2")
    with pytest.raises(dgatd.Error, match=r"^mpirun: started as 2 ranks .*dgatd run PATH\)$"):
        dgatd.Simulation(**cavity())


def test_local_steps_from_python(in_tmp):
    """A closed cavity graded towards a PEC sphere steps in levels: the plan says how many, the coarse
    step exceeds the leapfrog's bound, and the probes come at coarse steps."""
    tables = cavity(
        steps=30,
        mesh=dgatd.mesh.sphere(0.1, 0.28, 0.44, 0.05, h_sphere=0.0125, pml=0.1, reproducible=True),
        sources=[dict(kind="dipole", position=[0.05, 0.12, 0.09], direction=[0.5, 0.6, 0.62],
                      waveform="modulated_gaussian", frequency=0.25e9, sigma=1.5e-9)],
        probes=[dict(name="p", position=[0.22, 0.22, 0.35])],
    )
    tables["time"]["local_steps"] = "auto"
    sim = dgatd.Simulation(**tables, report=False)
    assert sim.plan["local_levels"] >= 2
    assert sim.plan["local_work_ratio"] > 1
    assert not sim.plan["local_tets_by_level"], "30 steps do not repay the set-up made again"
    assert 0 <= sim.plan["local_current_level"] < sim.plan["local_levels"], "the dipole's level"
    assert not sim.plan["local_currents_solved"], "a dipole's current is prescribed, not solved"
    assert sim.plan["dt"] > sim.plan["dt_max"]
    assert sim.run(progress=False)["complete"]
    assert np.allclose(np.diff(sim.results.probe("p").time), sim.plan["dt"])
