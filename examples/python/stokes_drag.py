"""A user force through the callback: Stokes drag on grains settling in a viscous liquid.

The engine steps gravity and contacts; every ten steps the callback applies the drag of a
liquid at rest, F = -6 pi mu r v (Stokes' law), over those ten steps exactly: between two
calls dv/dt = -v / tau with tau = m / (6 pi mu r), so v <- v exp(-dt / tau) (a Lie splitting,
first order in the interval, which here is tau / 460). A dilute cloud of glass beads released at
rest then falls as v(t) = -g tau (1 - exp(-t / tau)) (buoyancy left out), which the script
checks against the mean fall speed of the beads.

    python examples/python/stokes_drag.py

GRAINFLOW_EXAMPLE_SHORT=1 runs 0.02 s instead of 0.1 s (CI).
"""

import math
import os

import numpy as np

import grainflow as gf

SHORT = os.environ.get("GRAINFLOW_EXAMPLE_SHORT") == "1"
MU = 1e-2  # dynamic viscosity (Pa s), ten times water's
RADIUS = 0.5e-3  # m
DENSITY = 2500.0  # kg/m^3
G = 9.81  # m/s^2

SCENE = {
    "simulation": {"duration": 1.0, "dt": 3e-6, "seed": 4,
                   "domain": [[-0.05, -0.5, -0.05], [0.05, 0.05, 0.05]]},
    "contact": {"normal": "hertz", "tangential": "spring", "characteristic_velocity": 1.0},
    "materials": [{"name": "glass", "density": DENSITY, "youngs_modulus": 70e6,
                   "poisson_ratio": 0.24, "restitution": 0.9, "sliding_friction": 0.3}],
    "gravity": {"uniform": [0.0, -G, 0.0]},
    "particles": [{"type": "random", "material": "glass", "count": 200, "radius": RADIUS,
                   "min": [-0.02, -0.02, -0.02], "max": [0.02, 0.02, 0.02]}],
}


def main():
    sim = gf.Simulation.from_dict(SCENE)
    tau = sim.masses / (6 * math.pi * MU * sim.radii)  # s, per grain
    interval = 10 * sim.dt

    def drag(s):
        s.velocities = s.velocities * np.exp(-interval / tau)[:, None]

    until = 0.02 if SHORT else 0.1
    sim.run(until, every=interval, callback=drag)
    t = tau.mean()
    expected = -G * t * (1 - math.exp(-sim.time / t))
    measured = sim.velocities[:, 1].mean()
    print(f"{len(sim)} grains, tau = {t:.4e} s; after {sim.time:.3f} s the mean vertical "
          f"velocity is {measured:.5f} m/s, Stokes settling gives {expected:.5f} m/s "
          f"(terminal {-G * t:.5f} m/s)")
    # The splitting error is of order interval / (2 tau), 0.1 %: within 1 %.
    assert abs(measured - expected) <= 0.01 * abs(expected), (measured, expected)


if __name__ == "__main__":
    main()
