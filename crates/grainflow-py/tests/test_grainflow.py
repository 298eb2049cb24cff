"""grainflow from Python against the command line and the contact law.

Every comparison with the command line is bit for bit; the contact quantities are compared with
the linear spring F = k_n δ evaluated at the state the step left.
"""

import threading

import numpy as np
import pytest

import grainflow as gf
from conftest import box, run_cli


def state(sim):
    """Positions, velocities and spins in the order of the ids, as raw bits."""
    order = np.argsort(sim.ids)
    return [a[order].view(np.uint64) for a in (sim.positions, sim.velocities, sim.spins)]


def same_bits(a, b):
    return all(np.array_equal(x, y) for x, y in zip(state(a), state(b)))


def test_scene_from_text_and_dict_give_the_same_run():
    text = box()
    dict_scene = gf.Simulation.from_dict(
        {
            "simulation": {"duration": 5e-4, "dt": 5e-6, "seed": 3,
                           "domain": np.array([[-0.05, -0.05, -0.01], [0.05, 0.05, 0.1]])},
            "contact": {"normal": "hertz", "tangential": "spring", "rolling": "constant",
                        "characteristic_velocity": 1.0},
            "materials": [{"name": "glass", "density": 2500.0, "youngs_modulus": 70e6,
                           "poisson_ratio": 0.24, "restitution": 0.9, "sliding_friction": 0.3,
                           "rolling_friction": 0.05}],
            "gravity": {"uniform": [0.0, 0.0, -9.81]},
            "walls": [
                {"type": "plane", "material": "glass", "point": [0.0, 0.0, 0.0],
                 "normal": [0.0, 0.0, 1.0]},
                {"type": "cylinder", "material": "glass", "origin": [0.0, 0.0, 0.0],
                 "axis": (0.0, 0.0, 1.0), "radius": 0.015, "side": "inside"},
            ],
            "particles": [{"type": "random", "material": "glass", "count": 300,
                           "radius": 1.0e-3, "spread": 0.1, "min": [-0.010, -0.010, 0.0],
                           "max": [0.010, 0.010, 0.02], "velocity": [0.0, 0.0, -2.0]}],
            "output": {"checkpoint_interval": 5e-3},
        },
        threads=1,
    )
    text_scene = gf.Simulation.from_toml(text, threads=1)
    assert len(text_scene) == len(dict_scene) == 300
    text_scene.step(20)
    dict_scene.step(20)
    assert same_bits(text_scene, dict_scene)
    # A built-in scene, as a dict and by name.
    assert gf.Simulation.from_dict(gf.scene("pour")).dt == gf.Simulation.from_toml("pour").dt
    assert "pour" in gf.scenes() and gf.scene_text("pour").startswith("#")


def test_a_typo_is_refused_naming_the_field_as_the_cli_does(tmp_path, cli):
    path = tmp_path / "typo.toml"
    path.write_text(box().replace("sliding_friction", "sliding_fricton"))
    with pytest.raises(gf.SceneError) as e:
        gf.Simulation.from_toml(path)
    assert e.value.field == "materials[0].sliding_fricton"
    assert e.value.place.startswith(f"{path}:")
    assert e.value.reason.startswith("unknown field `sliding_fricton`")
    status, _, err = run_cli(cli, "check", path)
    assert status != 0 and err.strip() == f"error: {e.value}"
    # In a dict: the same words, in a file called `dict`.
    scene = gf.scene("pour")
    scene["materials"][0]["sliding_fricton"] = scene["materials"][0].pop("sliding_friction")
    with pytest.raises(gf.SceneError) as d:
        gf.Simulation.from_dict(scene)
    assert d.value.field == "materials[0].sliding_fricton"
    assert str(d.value).startswith("dict: materials[0].sliding_fricton: unknown field")


def test_every_refused_value_is_listed_as_check_lists_it(tmp_path, cli):
    path = tmp_path / "bad.toml"
    path.write_text(box().replace("duration = 0.0005", "duration = -1.0")
                    .replace("restitution = 0.9", "restitution = 1.5"))
    with pytest.raises(gf.SceneError) as e:
        gf.Simulation.from_toml(path)
    _, out, _ = run_cli(cli, "check", path)
    refused = [line[len("refused: "):] for line in out.splitlines() if line.startswith("refused: ")]
    assert len(refused) >= 2 and e.value.problems == refused
    assert e.value.field == "simulation.duration"


def test_100_steps_equal_the_cli_bit_for_bit(tmp_path, cli):
    path = tmp_path / "box.toml"
    path.write_text(box(steps=100))
    status, _, err = run_cli(cli, "run", path, "--out", tmp_path / "out")
    assert status == 0, err
    sim = gf.Simulation.from_toml(path, threads=1)
    sim.step(100)
    cli_state = gf.Simulation.resume(path, tmp_path / "out" / "final.gfck")
    assert sim.steps == cli_state.steps == 100
    assert sim.time == cli_state.time
    assert same_bits(sim, cli_state)


def test_resume_continues_bit_for_bit_as_the_cli(tmp_path, cli):
    path = tmp_path / "box.toml"
    path.write_text(box(steps=100, checkpoint_steps=60))
    status, _, err = run_cli(cli, "run", path, "--out", tmp_path / "out")
    assert status == 0, err
    # The command line's checkpoint at 3e-4 s (the step at or just past it), continued here
    # to 100 ...
    resumed = gf.Simulation.resume(path, tmp_path / "out" / "checkpoint.gfck", threads=2)
    assert resumed.steps in (60, 61)
    resumed.step(100 - resumed.steps)
    # ... and a checkpoint written here at 50, continued to 100.
    sim = gf.Simulation.from_toml(path)
    sim.step(50)
    sim.checkpoint(tmp_path / "mine.gfck")
    again = gf.Simulation.resume(path, tmp_path / "mine.gfck")
    again.step(50)
    sim.step(50)
    final = gf.Simulation.resume(path, tmp_path / "out" / "final.gfck")
    assert same_bits(resumed, final) and same_bits(again, final) and same_bits(sim, final)


def test_views_show_the_state_after_step_without_copying_and_are_read_only():
    sim = gf.Simulation.from_toml(box(), threads=1)
    n = len(sim)
    for name, shape, dtype in [("positions", (n, 3), np.float64), ("velocities", (n, 3), np.float64),
                               ("spins", (n, 3), np.float64), ("forces", (n, 3), np.float64),
                               ("torques", (n, 3), np.float64), ("radii", (n,), np.float64),
                               ("masses", (n,), np.float64), ("ids", (n,), np.uint64)]:
        v = getattr(sim, name)
        assert v.shape == shape and v.dtype == dtype, name
        assert v.base is sim and not v.flags.owndata and not v.flags.writeable, name
        with pytest.raises(ValueError):
            v[0] = 1
        with pytest.raises(ValueError):
            v.setflags(write=True)

    def address(a):
        return a.__array_interface__["data"][0]

    # No view alive over the step: the next view shows the same memory, now stepped.
    before = np.array(sim.positions)
    where = address(sim.positions)
    assert address(sim.positions) == where  # a second view is no copy
    sim.step(10)
    after = sim.positions
    assert address(after) == where and not np.array_equal(after, before)
    # A view alive over a step keeps the state it was taken at; the next shows the new one.
    held = after[:, 2]  # a slice keeps its view, and so the memory, alive
    kept = np.array(held)
    sim.step(10)
    assert np.array_equal(held, kept)
    assert not np.array_equal(sim.positions[:, 2], kept)
    # The state after the step is what a checkpoint holds: the library's own arrays.
    assert np.array_equal(sim.velocities[:, 2], np.asarray(sim.velocities)[:, 2])


def test_setters_check_shape_dtype_and_finiteness():
    sim = gf.Simulation.from_toml(box(), threads=1)
    n = len(sim)
    with pytest.raises(ValueError, match=r"positions: expected shape \(300, 3\)"):
        sim.positions = np.zeros((n, 2))
    with pytest.raises(TypeError, match="float64"):
        sim.velocities = np.zeros((n, 3), dtype=np.float32)
    with pytest.raises(TypeError):
        sim.spins = [[0.0, 0.0, 0.0]] * n
    bad = np.zeros((n, 3))
    bad[7, 1] = np.nan
    with pytest.raises(ValueError, match=r"velocities\[7\]: must be finite"):
        sim.velocities = bad
    # Accepted values land in the state, and a stopped grain with no force stays put.
    v = np.array(sim.velocities)
    v[:, :] = 0.0
    sim.velocities = v
    assert np.all(sim.velocities == 0.0)
    sim.spins = np.full((n, 3), 2.0)
    assert np.all(sim.spins == 2.0)
    p = np.array(sim.positions)
    p[:, 2] += 0.01
    sim.positions = p
    assert np.array_equal(sim.positions, p)


def test_a_callback_returning_false_stops_the_run():
    sim = gf.Simulation.from_toml(box(), threads=1)
    seen = []

    def stop_at_30(s):
        seen.append(s.steps)
        return s.steps < 30

    every = 10 * sim.dt
    assert sim.run(1.0, every=every, callback=stop_at_30) is False
    assert seen == [10, 20, 30] and sim.steps == 30
    # Returning None goes on; to the end without a callback.
    assert sim.run(sim.time + 20 * sim.dt, callback=lambda s: None) is True
    assert sim.steps == 50
    assert sim.run(sim.time + 5 * sim.dt) is True and sim.steps == 55


def test_contacts_walls_and_energies_follow_the_contact_law():
    """Two spheres 1 µm into each other and a third 1 µm into the floor, linear spring
    k_n = 9000 N/m without damping, no gravity: F = k_n δ on every contact (δ from the
    positions after the step), the floor bears the third sphere's force, and the energies
    are Σ ½ m v² and Σ ½ I ω² of the views."""
    scene = {
        "simulation": {"duration": 1e-3, "dt": 1e-6},
        "contact": {"normal": {"linear": {"kn": 9000.0, "damping": 0.0}}, "tangential": "none"},
        "materials": [{"name": "g", "density": 3200, "youngs_modulus": 1e7,
                       "poisson_ratio": 0.25, "restitution": 1.0, "sliding_friction": 0.5}],
        "walls": [{"type": "plane", "material": "g", "point": [0, 0, 0], "normal": [0, 0, 1]}],
        "particles": [{"type": "list", "material": "g", "spheres": [
            {"pos": [0.0, 0.0, 0.01], "radius": 1e-3},
            {"pos": [0.0, 1.999e-3, 0.01], "radius": 1e-3},
            {"pos": [0.01, 0.0, 0.999e-3], "radius": 1e-3}]}],
    }
    sim = gf.Simulation.from_dict(scene, threads=1)
    with pytest.raises(gf.Error, match="keep_contacts"):
        sim.contacts()
    sim.keep_contacts()
    sim.step()
    c = sim.contacts()
    assert c["ids"].shape == (1, 2)
    index = {grain: k for k, grain in enumerate(sim.ids)}
    i, j = (index[grain] for grain in c["ids"][0])
    p = sim.positions
    delta = 2e-3 - np.linalg.norm(p[j] - p[i])
    assert c["overlaps"][0] == pytest.approx(delta, rel=1e-9)
    assert c["normal_forces"][0] == pytest.approx(9000.0 * delta, rel=1e-9)
    assert np.allclose(c["normals"][0], (p[j] - p[i]) / np.linalg.norm(p[j] - p[i]), rtol=1e-12)
    floor = sim.walls[0]
    low = np.argmin(p[:, 2])
    assert floor["force"][2] == pytest.approx(-9000.0 * (1e-3 - p[low, 2]), rel=1e-9)
    assert np.array_equal(floor["offset"], [0.0, 0.0, 0.0])
    assert np.array_equal(floor["rotation"], [0.0, 0.0, 0.0, 1.0])
    # σ_yy over a box holding the contact: −F d / V (004 eq 3).
    lo, hi = np.array([-5e-3, -5e-3, 5e-3]), np.array([5e-3, 5e-3, 15e-3])
    d = np.linalg.norm(p[j] - p[i])
    sigma = sim.stress(lo, hi)
    assert sigma[1, 1] == pytest.approx(-9000.0 * delta * d / np.prod(hi - lo), rel=1e-9)
    e = sim.energies()
    inertia = 0.4 * sim.masses * sim.radii**2
    assert e["translational"] == pytest.approx(0.5 * np.sum(sim.masses[:, None] * sim.velocities**2), rel=1e-12)
    assert e["rotational"] == pytest.approx(0.5 * np.sum(inertia[:, None] * sim.spins**2), abs=1e-30)


def test_threads_and_kept_contacts_give_the_same_bits():
    one = gf.Simulation.from_toml(box(), threads=1)
    two = gf.Simulation.from_toml(box(), threads=2)
    assert two.threads == 2
    two.keep_contacts()
    worker = threading.Thread(target=two.step, args=(60,))
    worker.start()
    one.step(60)  # two simulations stepping at once, each in its own pool
    worker.join()
    assert same_bits(one, two)


def test_a_validation_case_returns_passing_metrics():
    metrics = gf.validate("sliding")
    assert len(metrics) >= 1
    for m in metrics:
        assert set(m) == {"case", "model", "metric", "value", "expected", "tolerance",
                          "comparison", "pass"}
        assert m["case"] == "sliding" and m["pass"] is True
        if m["comparison"] == "within":
            assert abs(m["value"] - m["expected"]) <= m["tolerance"]
    with pytest.raises(KeyError):
        gf.validate("no-such-case")
