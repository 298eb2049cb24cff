"""Shared scenes and the command-line binary the Python results are compared with."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]

# 300 glass beads (002 Table 2, E lowered to 70 MPa) falling into a 30 mm box: contacts with
# each other and the floor within 100 steps of 5e-6 s (the beads start 0.3 mm apart in
# height, moving down at 0.5 m/s).
BOX = """
[simulation]
duration = {duration}
dt = 5e-6
seed = 3
domain = [[-0.05, -0.05, -0.01], [0.05, 0.05, 0.1]]

[contact]
normal = "hertz"
tangential = "spring"
rolling = "constant"
characteristic_velocity = 1.0

[[materials]]
name = "glass"
density = 2500.0
youngs_modulus = 70e6
poisson_ratio = 0.24
restitution = 0.9
sliding_friction = 0.3
rolling_friction = 0.05

[gravity]
uniform = [0.0, 0.0, -9.81]

[[walls]]
type = "plane"
material = "glass"
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]

[[walls]]
type = "cylinder"
material = "glass"
origin = [0.0, 0.0, 0.0]
axis = [0.0, 0.0, 1.0]
radius = 0.015
side = "inside"

[[particles]]
type = "random"
material = "glass"
count = 300
radius = 1.0e-3
spread = 0.1
min = [-0.010, -0.010, 0.0]
max = [0.010, 0.010, 0.02]
velocity = [0.0, 0.0, -2.0]

[output]
checkpoint_interval = {checkpoint}
"""


def box(steps=100, checkpoint_steps=None):
    """The box scene running `steps` steps, with a checkpoint every `checkpoint_steps`."""
    every = checkpoint_steps if checkpoint_steps else 10 * steps
    return BOX.format(duration=repr(steps * 5e-6), checkpoint=repr(every * 5e-6))


@pytest.fixture(scope="session")
def cli():
    """The `grainflow` binary: $GRAINFLOW_CLI, else the workspace's release build."""
    path = pathlib.Path(os.environ.get("GRAINFLOW_CLI", ROOT / "target" / "release" / "grainflow"))
    assert path.is_file(), (
        f"{path}: no grainflow binary; build it (cargo build --release) or set GRAINFLOW_CLI"
    )
    return path


def run_cli(cli, *args, cwd=None):
    """Runs the binary; returns (exit status, stdout, stderr)."""
    r = subprocess.run([str(cli), *map(str, args)], capture_output=True, text=True, cwd=cwd)
    return r.returncode, r.stdout, r.stderr
